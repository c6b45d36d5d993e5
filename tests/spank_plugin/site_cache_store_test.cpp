#include "site_cache_store.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

namespace hetscale::spank {
namespace {

namespace fs = std::filesystem;

class SiteCacheStore : public ::testing::Test {
 protected:
  // One directory per test, so that ctest -j can run them side by side.
  fs::path dir = fs::path(HETSCALE_BINARY_DIR) / "site_cache_store_test" /
                 ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::path site = dir / "site.toml";
  fs::path cache = dir / "cache";
  int loads = 0;

  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
    ::chmod(dir.c_str(), 0755);
    std::ofstream(site) << "any text: the loader below is a stand-in";
  }

  SiteTable load(const fs::path& path) {
    ++loads;
    SiteTable table;
    table.name = "t";
    table.source = path;
    table.nodes = {{"n1", "g", 1, 2.5, NodeState::ok, {}}};
    table.index();
    return table;
  }

  SiteTable load_cached() {
    return load_site_table_cached(site, cache, [this](const fs::path& p) { return load(p); });
  }
};

TEST_F(SiteCacheStore, SecondLoadComesFromTheCache) {
  EXPECT_EQ(load_cached().find_node("n1")->marked_speed, 2.5);
  EXPECT_TRUE(fs::exists(cache_file_for(site, cache)));
  SiteTable again = load_cached();
  EXPECT_EQ(loads, 1);
  EXPECT_EQ(again.find_node("n1")->marked_speed, 2.5);
}

TEST_F(SiteCacheStore, ChangedTableIsParsedAgain) {
  load_cached();
  std::ofstream(site, std::ios::app) << "\nchanged";
  load_cached();
  EXPECT_EQ(loads, 2);
}

TEST_F(SiteCacheStore, WorldWritableCacheIsNotTrusted) {
  load_cached();
  ::chmod(cache.c_str(), 0777);
  load_cached();
  EXPECT_EQ(loads, 2);
}

TEST_F(SiteCacheStore, CacheOffAlwaysLoads) {
  load_site_table_cached(site, "", [this](const fs::path& p) { return load(p); });
  load_site_table_cached(site, "", [this](const fs::path& p) { return load(p); });
  EXPECT_EQ(loads, 2);
  EXPECT_FALSE(fs::exists(cache));
}

TEST_F(SiteCacheStore, CacheFileName) {
  EXPECT_EQ(cache_file_for("/etc/hetscale/site.toml", "/var/cache/hetscale"),
            "/var/cache/hetscale/%etc%hetscale%site.toml.cache");
}

}  // namespace
}  // namespace hetscale::spank
