#include "support/drained_node.hpp"

#include <chrono>
#include <stdexcept>
#include <thread>

#include "support/process.hpp"

namespace hetscale::test {

DrainedNode::DrainedNode(std::string node) : node_(std::move(node)) {
  const auto r =
      run_command({"scontrol", "update", "nodename=" + node_, "state=drain", "reason=hetscale availability test"});
  if (!r.ok()) throw std::runtime_error("cannot drain " + node_ + ": " + r.describe());
}

DrainedNode::~DrainedNode() {
  (void)run_command({"scontrol", "update", "nodename=" + node_, "state=resume"});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    const auto r = run_command({"scontrol", "show", "node", node_, "--oneliner"});
    if (r.ok() && r.out.find(" State=IDLE ") != std::string::npos) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace hetscale::test
