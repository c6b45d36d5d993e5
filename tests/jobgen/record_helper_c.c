/* Compiled as C99: the C helper must build as C, not only as C++. */
#include "hetscale_record.h"

int write_record_from_c(void) {
  hetscale_rank_timing ranks[2] = {{0, "n1", 0.75, 30.0, 1.5, 0.25, 2.0}, {1, "n\"2", 0.25, 10.0, 1.4, 0.5, 2.0}};
  hetscale_run run = {"heat", "500*M^2", "M", 1000.0, 5e8, 2.5, 1, "2026-11-21T06:10:00Z", NULL};
  return hetscale_write_record(&run, ranks, 2);
}

/* The same run with `figure` as rank 1's compute time. */
int write_record_with_rank_figure_from_c(double figure) {
  hetscale_rank_timing ranks[2] = {{0, "n1", 0.75, 30.0, 1.5, 0.25, 2.0}, {1, "n2", 0.25, 10.0, 1.4, 0.5, 2.0}};
  hetscale_run run = {"heat", "500*M^2", "M", 1000.0, 5e8, 2.5, 1, NULL, NULL};
  ranks[1].compute_seconds = figure;
  return hetscale_write_record(&run, ranks, 2);
}
