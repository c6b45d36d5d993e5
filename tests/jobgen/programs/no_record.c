/* A program that writes no run record. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  const char *home = getenv("HOME");
  printf("%s\n", home != NULL ? home : "");
  return 0;
}
