#!/bin/sh
# Compiler and linker launcher of the kernels' SimGrid build (kernels/CMakeLists.txt):
# called as `smpicxx-launcher.sh SMPICXX CXX ARGS...`, it drops the C++ compiler CMake
# chose and runs SMPICXX ARGS..., so that smpicxx adds SMPI's headers, its helper
# include and, when linking, -shared -lsimgrid (smpirun loads the program as a library).
smpicxx=$1
shift 2
exec "$smpicxx" "$@"
