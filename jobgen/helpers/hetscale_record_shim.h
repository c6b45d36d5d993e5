/* hetscale_record_shim.h: the plain C ABI of libhetscale_record (hetscale_record_shim.c), which
 * the Fortran module (hetscale_record.f90) and the Python module (hetscale_record.py) call.
 * C and C++ programs include hetscale_record.h instead. */
#ifndef HETSCALE_RECORD_SHIM_H
#define HETSCALE_RECORD_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* hetscale_weight: HETSCALE_WEIGHT, else 1/size. */
double hetscale_record_weight(int rank, int size);

/* hetscale_write_record with flat arguments: rank i (0 <= i < count) has host field i of
 * `hosts` (count fields of host_length characters, each ending at its first NUL or padded
 * with blanks) and element i of each array; `marked_speeds` may be NULL (all 0), and an empty
 * or NULL start or end time is left out. Returns 0 (also outside a study, when HETSCALE_RECORD
 * is unset) or the errno value of the failure: EINVAL for a missing field, a count below 1 or
 * a number that is not finite (a rank's too). */
int hetscale_record_append(const char *code, const char *workload, const char *parameter, double parameter_value,
                           double work, double wall_seconds, int verified, const char *start_time,
                           const char *end_time, int count, const char *hosts, int host_length,
                           const double *weights, const double *marked_speeds, const double *compute_seconds,
                           const double *communication_seconds, const double *rank_wall_seconds);

#ifdef __cplusplus
}
#endif

#endif /* HETSCALE_RECORD_SHIM_H */
