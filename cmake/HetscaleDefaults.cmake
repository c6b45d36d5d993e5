# Compile options every hetscale target gets: warnings (as errors), hardening, sanitizers.
# (-Wnull-dereference is left out: GCC 12 reports false positives inside libstdc++ at -O2;
# -Wrestrict is off before GCC 13: at -O3, Release's level, GCC 12 reports a memcpy overlap
# of 2^63 bytes inside libstdc++ for `"text" + std::string`, GCC bug 105329; likewise
# -Wmaybe-uninitialized in Release before GCC 13: at -O3 GCC 12 reports the strings inside
# std::variant and std::optional temporaries, built in libstdc++, as maybe uninitialized;
# the -O2 builds keep the warning.)
add_library(hetscale_defaults INTERFACE)
target_compile_options(hetscale_defaults INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wformat=2 -Wimplicit-fallthrough
  -Wnon-virtual-dtor -Wcast-align
  $<$<BOOL:${HETSCALE_WERROR}>:-Werror>
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>,$<CONFIG:Release>>:-Wno-maybe-uninitialized>
  -fstack-protector-strong -fstack-clash-protection -fcf-protection)
if(NOT HETSCALE_SANITIZE AND NOT HETSCALE_FUZZ)
  # _FORTIFY_SOURCE needs optimisation; sanitizer and fuzz builds skip it.
  target_compile_definitions(hetscale_defaults INTERFACE $<$<NOT:$<CONFIG:Debug>>:_FORTIFY_SOURCE=2>)
endif()
target_link_options(hetscale_defaults INTERFACE -Wl,-z,relro -Wl,-z,now -Wl,--as-needed)
if(HETSCALE_SANITIZE)
  # At the build type's optimisation (-O0 in Debug, the sanitizer pass of scripts/test.sh):
  # it finds as much as -O1 and compiles in half the time.
  target_compile_options(hetscale_defaults INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(hetscale_defaults INTERFACE -fsanitize=address,undefined)
endif()
if(HETSCALE_FUZZ)
  # Coverage feedback for libFuzzer in every library a fuzz target links (clang only); the
  # targets themselves add -fsanitize=fuzzer, which brings libFuzzer's main (fuzz/).
  target_compile_options(hetscale_defaults INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
    -fno-omit-frame-pointer -O1)
  target_link_options(hetscale_defaults INTERFACE -fsanitize=address,undefined)
endif()
