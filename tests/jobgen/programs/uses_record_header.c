/* A program that writes its run record with the C helper (jobgen/helpers/hetscale_record.h). */
#include <stdio.h>

#include "hetscale_record.h"

int main(void) {
  hetscale_rank_timing rank = {0, "n1", 1.0, 0.0, 1.0, 0.0, 1.0};
  hetscale_run run = {"heat", "500*M^2", "M", 1000.0, 5e8, 1.0, 1, NULL, NULL};
  if (hetscale_write_record(&run, &rank, 1) != 0) perror("hetscale record");
  return 0;
}
