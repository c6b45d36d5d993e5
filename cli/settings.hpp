// The settings every command shares (database, site table, kernel directory) and where
// each comes from: a command-line option, the environment (HETSCALE_DB) or the config
// files /etc/hetscale/hetscale.toml then ~/.config/hetscale/hetscale.toml
// (docs/configuration.md). Later sources override earlier ones; options override all.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/base/error.hpp"

namespace hetscale {

/// Where a setting's value came from.
struct SettingOrigin {
  enum class Kind { unset, default_value, file, environment, option };
  Kind kind = Kind::unset;
  /// option: the option ("--db"); environment: the variable ("HETSCALE_DB");
  /// file: the key's place (file:line:col); default_value: what the default is.
  std::string name;
  SourceLocation where;  // file only

  /// "--db", "HETSCALE_DB", "/etc/hetscale/hetscale.toml:2:1", "default (...)" or "unset".
  [[nodiscard]] std::string str() const;
};

struct Setting {
  std::string value;  // empty when unset
  SettingOrigin origin;

  [[nodiscard]] bool is_set() const { return origin.kind != SettingOrigin::Kind::unset; }
  /// Replaces the value when `candidate` is not empty (an empty option means "not given").
  void override_by_option(const std::string& candidate, std::string_view option);
  /// Fills an unset setting with a default (e.g. the kernels beside the executable).
  void default_to(const std::string& fallback, std::string_view what);
};

/// One config file the resolution looked at.
struct ConfigFile {
  std::filesystem::path path;
  bool found = false;
};

struct Settings {
  Setting database;    // key `database`: a libpq URI or conninfo ("service=hetscale")
  Setting site;        // key `site`: the site table (TOML) path
  Setting kernel_dir;  // key `kernel_dir`: the directory of the bundled kernels
  std::vector<ConfigFile> files;  // in the order read
};

/// What the resolution reads besides the files, passed in so that tests give their own.
struct SettingsEnvironment {
  std::optional<std::string> hetscale_db;       // HETSCALE_DB
  std::optional<std::string> xdg_config_home;   // XDG_CONFIG_HOME
  std::optional<std::string> home;              // HOME
  std::filesystem::path system_file = "/etc/hetscale/hetscale.toml";

  /// The running process's variables and the real system file.
  static SettingsEnvironment of_process();
};

/// The config files in the order read: the system file, then the user's
/// ($XDG_CONFIG_HOME/hetscale/hetscale.toml when XDG_CONFIG_HOME is an absolute path, else
/// $HOME/.config/hetscale/hetscale.toml; none without HOME).
std::vector<std::filesystem::path> config_file_paths(const SettingsEnvironment& environment);

/// Reads one config file's text into `settings`, each key found overriding. Unknown keys,
/// wrong types and empty values are ConfigErrors at file:line:col. Relative `site` and
/// `kernel_dir` paths are taken relative to the file's directory.
void apply_config_text(std::string_view text, const std::filesystem::path& file, Settings& settings);

/// The files (a missing file is skipped; an unreadable or bad one is an error), then
/// HETSCALE_DB over the files' database. Options are applied by the caller
/// (Setting::override_by_option).
Settings load_settings(const SettingsEnvironment& environment);

/// The message for a setting that no source gives, naming every place it can come from,
/// e.g. "no database: give --db, set HETSCALE_DB or set `database` in /etc/...toml or ...".
std::string missing_setting_message(const Settings& settings, std::string_view key);

}  // namespace hetscale
