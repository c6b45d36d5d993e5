/* hetscale_record_shim.c: hetscale_record.h compiled into libhetscale_record, for languages
 * that call C through a plain ABI (the Fortran module hetscale_record.f90 with ISO_C_BINDING,
 * the Python module hetscale_record.py with ctypes). The record's format stays in
 * hetscale_record.h alone: this file only turns flat arguments (strings, one array per figure,
 * the hosts as fixed-width fields) into its structs and calls it. Declarations:
 * hetscale_record_shim.h. */
#include "hetscale_record_shim.h"

#include "hetscale_record.h"

double hetscale_record_weight(int rank, int size) { return hetscale_weight(rank, size); }

/* Field i of `hosts` up to its first NUL, without trailing blanks (Fortran pads with them). */
static void hetscale_copy_host_(char *to, const char *field, int length) {
  int n = 0;
  while (n < length && field[n] != '\0') ++n;
  while (n > 0 && field[n - 1] == ' ') --n;
  memcpy(to, field, (size_t)n);
  to[n] = '\0';
}

int hetscale_record_append(const char *code, const char *workload, const char *parameter, double parameter_value,
                           double work, double wall_seconds, int verified, const char *start_time,
                           const char *end_time, int count, const char *hosts, int host_length,
                           const double *weights, const double *marked_speeds, const double *compute_seconds,
                           const double *communication_seconds, const double *rank_wall_seconds) {
  hetscale_run run;
  hetscale_rank_timing *ranks = NULL;
  char *names = NULL;
  int i, result;
  errno = 0;
  if (count <= 0 || host_length <= 0 || hosts == NULL || weights == NULL || compute_seconds == NULL ||
      communication_seconds == NULL || rank_wall_seconds == NULL) /* 0 outside a study, else EINVAL */
    return hetscale_write_record(NULL, NULL, 0) == 0 ? 0 : errno;
  ranks = (hetscale_rank_timing *)calloc((size_t)count, sizeof *ranks);
  names = (char *)malloc((size_t)count * ((size_t)host_length + 1));
  if (ranks == NULL || names == NULL) {
    free(ranks);
    free(names);
    return ENOMEM;
  }
  for (i = 0; i < count; ++i) {
    char *name = names + (size_t)i * ((size_t)host_length + 1);
    hetscale_copy_host_(name, hosts + (size_t)i * (size_t)host_length, host_length);
    ranks[i].rank = i;
    ranks[i].host = name;
    ranks[i].weight = weights[i];
    ranks[i].marked_speed = marked_speeds ? marked_speeds[i] : 0.0;
    ranks[i].compute_seconds = compute_seconds[i];
    ranks[i].communication_seconds = communication_seconds[i];
    ranks[i].wall_seconds = rank_wall_seconds[i];
  }
  run.code = code;
  run.workload = workload;
  run.parameter = parameter;
  run.parameter_value = parameter_value;
  run.work = work;
  run.wall_seconds = wall_seconds;
  run.verified = verified != 0;
  run.start_time = start_time && *start_time ? start_time : NULL;
  run.end_time = end_time && *end_time ? end_time : NULL;
  result = hetscale_write_record(&run, ranks, count) == 0 ? 0 : (errno ? errno : EIO);
  free(ranks);
  free(names);
  return result;
}
