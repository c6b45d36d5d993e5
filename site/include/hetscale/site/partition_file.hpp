// A partition file: explicit work shares for the ranks of a step, per node or per rank,
// written by `hetscale equalize` or by a user (format: docs/partition-file.md).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetscale/base/error.hpp"
#include "hetscale/site/hostlist.hpp"

namespace hetscale {

struct Partition {
  enum class By { node, rank };

  struct NodeShare {
    std::string host;   // one node; a [[node]] naming a host list gives one entry each
    double weight = 0;  // the node's share, split evenly between its ranks
    SourceLocation where;
  };
  struct RankShare {
    std::uint32_t rank = 0;
    double weight = 0;
    SourceLocation where;
  };

  By by = By::node;
  std::string site;              // site table it was made for; empty: any
  std::string node_list;         // step node list it was made for (key `nodes`); empty: any
  std::string source;            // file name used in messages
  std::vector<NodeShare> nodes;  // when by == node, in file order
  std::vector<RankShare> ranks;  // when by == rank, in file order
};

/// Parses a partition file. Throws ConfigError (file:line:col) on syntax errors, unknown
/// keys, wrong types, missing keys, non-positive or non-finite weights, duplicates,
/// entries that do not match `by`, a file with no entry, and host lists that expand to
/// more than `max_hosts` nodes in all (the SPANK plugin passes the step's node count).
Partition parse_partition(std::string_view text, const std::string& source_name,
                          std::size_t max_hosts = HostlistLimits{}.max_hosts);

/// Each rank's weight (summing to 1) given the host every rank runs on (by global rank):
/// a node's share is split evenly between its ranks. Throws Error naming a rank or node
/// that the partition and the ranks do not agree on.
std::vector<double> weights_for_ranks(const Partition& partition,
                                      std::span<const std::string> rank_hosts);

/// Writes a partition in the format parse_partition reads (weights with 17 significant
/// digits, so reading it back gives the same doubles).
std::string format_partition(const Partition& partition);

/// The longest file name a partition file gets (the limit of Linux file systems).
inline constexpr std::size_t kMaxPartitionFileName = 255;

/// The directory of a user's own equalized partitions: `<partitions>/uid-<uid>`.
std::filesystem::path user_partitions_dir(const std::filesystem::path& partitions, uid_t uid);

/// Where the equalized partition of a step lives (docs/partition-file.md), for `hetscale
/// equalize` to write and the SPANK plugin to read, by the file's owner: root's, the site's,
/// is `<partitions>/<node list>.toml`; any other user's is in their own directory,
/// `user_partitions_dir(partitions, owner)/<node list>.toml`. The node list is
/// compress_hostlist(hosts) (Slurm's SLURM_STEP_NODELIST form), `hosts` in the step's node
/// order; when that name would be longer than kMaxPartitionFileName bytes, the file is
/// `nodes-<sha256 of the node list, hex>.toml`.
std::filesystem::path equalized_partition_path(const std::filesystem::path& partitions,
                                               std::span<const std::string> hosts, uid_t owner);

/// Makes `uid`'s directory of equalized partitions (mode 0755) when it is missing, for
/// `hetscale equalize` run by that user. Throws Error when it cannot be made, or is there
/// and not the user's own or writable by others (the plugin would pass it over).
void make_user_partitions_dir(const std::filesystem::path& partitions, uid_t uid);

/// The equalized partition of the step on `hosts`, for the SPANK plugin (running as root)
/// and a job of `job_uid`: the user's own file (equalized_partition_path with owner
/// `job_uid`) when there is one in a directory of theirs (owned by them or root, writable by
/// nobody else; another's directory of that name is passed over), else the site's, root's.
/// Either file is believed only when owned by one of the owners it may have (the user's:
/// root or the user; the site's: root), writable by nobody else and not a symbolic link;
/// its `nodes` must be the step's node list (and must be given when the file is named by
/// digest). Throws Error naming the file and why it is not used, or both files expected;
/// the caller decides what that means for the step.
Partition read_equalized_partition(const std::filesystem::path& partitions,
                                   std::span<const std::string> hosts, uid_t job_uid);

}  // namespace hetscale
