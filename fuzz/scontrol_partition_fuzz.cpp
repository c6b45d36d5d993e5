// `scontrol show partition NAME --oneliner` output (slurm/src/scontrol.cpp), read
// by `hetscale jobgen` to check the machine sets against the partition. Any text gives a
// partition or raises Error (a bad host list: ExpressionError); a partition has a name.
#include "fuzz_targets.hpp"
#include "hetscale/base/error.hpp"
#include "hetscale/slurm/scontrol.hpp"

int hetscale_fuzz_scontrol_partition(const std::uint8_t* data, std::size_t size) {
  hetscale::slurm::Partition partition;
  try {
    partition = hetscale::slurm::parse_scontrol_partition(hetscale::fuzz::text_of(data, size));
  } catch (const hetscale::Error&) {
    return 0;
  }
  for (const std::string& node : partition.nodes) {
    hetscale::fuzz::require(!node.empty(), "empty node name");
  }
  return 0;
}

#ifdef HETSCALE_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetscale_fuzz_scontrol_partition(data, size);
}
#endif
