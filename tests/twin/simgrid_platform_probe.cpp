// Loads a platform with SimGrid's own loader and prints what SimGrid made of it, for
// twin_platform_test.cpp to compare with the site table:
//   host NAME SPEED CORES                  (speed in flop/s)
//   link NAME LATENCY BANDWIDTH            (seconds, bytes/s; every link once)
//   route FROM TO LATENCY LINK...          (every ordered pair of distinct hosts)
// and, given times, runs the simulation to each and prints every host's speed profile:
//   available TIME HOST RATIO              (the fraction of its speed the host has then)
// Usage: simgrid_platform_probe PLATFORM.xml [TIME,TIME,...]
#include <cstdio>
#include <exception>
#include <simgrid/s4u.hpp>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  try {
    simgrid::s4u::Engine engine(&argc, argv);
    if (argc != 2 && argc != 3) {
      std::fprintf(stderr, "usage: simgrid_platform_probe PLATFORM.xml [TIME,TIME,...]\n");
      return 2;
    }
    engine.load_platform(argv[1]);
    engine.seal_platform();  // star and Full zones resolve their routes here
    const std::vector<simgrid::s4u::Host*> hosts = engine.get_all_hosts();
    for (const simgrid::s4u::Host* host : hosts)
      std::printf("host %s %.17g %d\n", host->get_cname(), host->get_speed(),
                  host->get_core_count());
    for (const simgrid::s4u::Link* link : engine.get_all_links())
      std::printf("link %s %.17g %.17g\n", link->get_cname(), link->get_latency(),
                  link->get_bandwidth());
    for (const simgrid::s4u::Host* from : hosts)
      for (const simgrid::s4u::Host* to : hosts) {
        if (from == to) continue;
        std::vector<simgrid::s4u::Link*> links;
        double latency = 0;
        from->route_to(to, links, &latency);
        std::printf("route %s %s %.17g", from->get_cname(), to->get_cname(), latency);
        for (const simgrid::s4u::Link* link : links) std::printf(" %s", link->get_cname());
        std::printf("\n");
      }
    if (argc == 3) {
      std::vector<double> times;
      std::istringstream list(argv[2]);
      for (std::string time; std::getline(list, time, ',');) times.push_back(std::stod(time));
      simgrid::s4u::Actor::create("sampler", hosts.front(), [times, hosts] {
        for (double time : times) {
          simgrid::s4u::this_actor::sleep_until(time);
          for (const simgrid::s4u::Host* host : hosts)
            std::printf("available %.17g %s %.17g\n", time, host->get_cname(),
                        host->get_available_speed());
        }
      });
      engine.run();
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simgrid_platform_probe: %s\n", e.what());
    return 1;
  }
}
