#include "configured_settings.hpp"

#include "commands.hpp"
#include "invocation.hpp"

namespace hetscale::cli {

Settings effective_settings(const std::string& db_option, const std::string& site_option,
                            const std::string& kernel_dir_option) {
  Settings settings = load_settings(SettingsEnvironment::of_process());
  settings.database.override_by_option(db_option, "--db");
  settings.site.override_by_option(site_option, "--site");
  settings.kernel_dir.override_by_option(kernel_dir_option, "--kernel-dir");
  settings.kernel_dir.default_to(own_directory(), "beside the hetscale executable");
  return settings;
}

std::string configured_database(const std::string& db_option) {
  if (!db_option.empty()) return db_option;
  return effective_settings("", "", "").database.value;
}

std::string required_database(const std::string& db_option) {
  if (!db_option.empty()) return db_option;
  const Settings settings = effective_settings("", "", "");
  if (!settings.database.is_set()) throw UsageError(missing_setting_message(settings, "database"));
  return settings.database.value;
}

std::string required_site_table(const std::string& site_option) {
  if (!site_option.empty()) return site_option;
  const Settings settings = effective_settings("", "", "");
  if (!settings.site.is_set()) throw UsageError(missing_setting_message(settings, "site"));
  return settings.site.value;
}

std::string kernel_dir_from(const std::string& kernel_dir_option) {
  if (!kernel_dir_option.empty()) return kernel_dir_option;
  return effective_settings("", "", "").kernel_dir.value;
}

}  // namespace hetscale::cli
