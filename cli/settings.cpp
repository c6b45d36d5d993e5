#include "settings.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <system_error>

#include "hetscale/base/regular_file.hpp"
#include "hetscale/base/toml_source.hpp"

namespace hetscale {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t config_file_max_bytes = 1u << 20;

struct KeyInfo {
  std::string_view key;
  std::string_view option;
  std::string_view environment;  // empty: no variable
  std::string_view what;
};

// One row per setting: its key, option and variable, as docs/configuration.md lists them.
constexpr KeyInfo keys[] = {
    {"database", "--db", "HETSCALE_DB", "database"},
    {"site", "--site", "", "site table"},
    {"kernel_dir", "--kernel-dir", "", "kernel directory"},
};

const KeyInfo& key_info(std::string_view key) {
  for (const KeyInfo& k : keys)
    if (k.key == key) return k;
  throw std::invalid_argument(fmt::format("no setting '{}'", key));
}

Setting& setting_of(Settings& settings, std::string_view key) {
  if (key == "database") return settings.database;
  if (key == "site") return settings.site;
  return settings.kernel_dir;
}

std::optional<std::string> variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace

std::string SettingOrigin::str() const {
  switch (kind) {
    case Kind::unset: return "unset";
    case Kind::default_value: return name.empty() ? "default" : "default (" + name + ")";
    case Kind::file: return where.str();
    case Kind::environment:
    case Kind::option: return name;
  }
  return "unset";
}

void Setting::override_by_option(const std::string& candidate, std::string_view option) {
  if (candidate.empty()) return;
  value = candidate;
  origin = SettingOrigin{SettingOrigin::Kind::option, std::string(option), {}};
}

void Setting::default_to(const std::string& fallback, std::string_view what) {
  if (is_set()) return;
  value = fallback;
  origin = SettingOrigin{SettingOrigin::Kind::default_value, std::string(what), {}};
}

SettingsEnvironment SettingsEnvironment::of_process() {
  SettingsEnvironment environment;
  environment.hetscale_db = variable("HETSCALE_DB");
  environment.xdg_config_home = variable("XDG_CONFIG_HOME");
  environment.home = variable("HOME");
  return environment;
}

std::vector<fs::path> config_file_paths(const SettingsEnvironment& environment) {
  std::vector<fs::path> paths{environment.system_file};
  // The XDG Base Directory rules: a relative or empty XDG_CONFIG_HOME is ignored.
  if (environment.xdg_config_home && fs::path(*environment.xdg_config_home).is_absolute())
    paths.push_back(fs::path(*environment.xdg_config_home) / "hetscale" / "hetscale.toml");
  else if (environment.home && !environment.home->empty())
    paths.push_back(fs::path(*environment.home) / ".config" / "hetscale" / "hetscale.toml");
  return paths;
}

void apply_config_text(std::string_view text, const fs::path& file, Settings& settings) {
  const TomlSource source(text, file.string());
  const toml::table document = source.parse();
  source.check_keys(document, {"database", "site", "kernel_dir"}, "in a hetscale config file");
  for (const auto& [key, node] : document) {
    const std::string_view name = key.str();
    std::string resolved = source.string(node, name);
    if (name != "database" && fs::path(resolved).is_relative())
      resolved = (file.parent_path() / resolved).lexically_normal().string();
    setting_of(settings, name) =
        Setting{std::move(resolved), SettingOrigin{SettingOrigin::Kind::file, "", source.at(key.source())}};
  }
}

Settings load_settings(const SettingsEnvironment& environment) {
  Settings settings;
  for (const fs::path& path : config_file_paths(environment)) {
    std::error_code ec;
    const bool found = fs::exists(path, ec);
    settings.files.push_back({path, found});
    if (!found) continue;
    const std::string text = read_regular_file(path, config_file_max_bytes);
    apply_config_text(text, path, settings);
  }
  if (environment.hetscale_db && !environment.hetscale_db->empty())
    settings.database = Setting{*environment.hetscale_db,
                                SettingOrigin{SettingOrigin::Kind::environment, "HETSCALE_DB", {}}};
  return settings;
}

std::string missing_setting_message(const Settings& settings, std::string_view key) {
  const KeyInfo& info = key_info(key);
  std::string files;
  for (std::size_t i = 0; i < settings.files.size(); ++i)
    files += (i == 0 ? "" : " or ") + settings.files[i].path.string();
  if (files.empty()) files = "a config file";
  if (info.environment.empty())
    return fmt::format("no {}: give {} or set `{}` in {}", info.what, info.option, info.key, files);
  return fmt::format("no {}: give {}, set {} or set `{}` in {}", info.what, info.option, info.environment,
                     info.key, files);
}

}  // namespace hetscale
