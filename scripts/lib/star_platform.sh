# shellcheck shell=bash
# star_platform DIR HOSTS: writes DIR/platform.xml, a star of HOSTS identical hosts h0..h<HOSTS-1>
# (a SimGrid <cluster>: 20 Gflop/s per host, 1.25 GB/s and 5 us per link), and DIR/hosts,
# one host name a line, for smpirun's -platform and -hostfile (the benchmarks of the twin).
star_platform() {
  local dir=$1 hosts=$2
  cat >"$dir/platform.xml" <<XML
<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="star" prefix="h" suffix="" radical="0-$((hosts - 1))" speed="20Gf" bw="1.25GBps" lat="5us"/>
</platform>
XML
  seq 0 $((hosts - 1)) | sed 's/^/h/' >"$dir/hosts"
}
