// A node of the running cluster drained for a test (`scontrol update state=drain`) and
// resumed when the test ends, also when it fails.
#pragma once

#include <string>

namespace hetscale::test {

class DrainedNode {
 public:
  /// Drains `node` with the reason "hetscale availability test"; throws std::runtime_error
  /// when scontrol refuses.
  explicit DrainedNode(std::string node);
  /// Resumes the node and waits (up to 20 s) until Slurm reports it IDLE again: a resumed
  /// node is NOT_RESPONDING until slurmctld has pinged it, and the next test must find it
  /// available.
  ~DrainedNode();
  DrainedNode(const DrainedNode&) = delete;
  DrainedNode& operator=(const DrainedNode&) = delete;

 private:
  std::string node_;
};

}  // namespace hetscale::test
