/* A program linked with libhetscale_record, as the Fortran module's users are. */
#include <stdio.h>

#include "hetscale_record_shim.h"

int main(void) {
  printf("%g\n", hetscale_record_weight(0, 2));
  return 0;
}
