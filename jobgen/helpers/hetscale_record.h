/* hetscale_record.h: write a hetscale run record (docs/run-record.md) from your own
 * MPI code, in C99, with no other dependency. Header only: include it in one or more
 * files. Reference and worked example: docs/experiment-spec.md.
 *
 *   double my_share = hetscale_weight(rank, size);   // HETSCALE_WEIGHT, else 1/size
 *   ... run, time it, gather every rank's timings on rank 0 (MPI_Gather) ...
 *   if (rank == 0) hetscale_write_record(&run, timings, size);
 *
 * hetscale_write_record appends one JSON line to the file named by HETSCALE_RECORD (set
 * by the scripts of `hetscale jobgen`); it does nothing when that variable is unset. The
 * experiment, machine set, repetition, marked speed C and Slurm ids come from the
 * environment. Returns 0 on success, -1 on error (errno set; EINVAL, and nothing written,
 * for a missing field or a number that is not finite: the run's, a rank's, or the marked
 * speed C in HETSCALE_SYSTEM_SPEED). Numbers are printed with printf, so keep the "C"
 * numeric locale.
 */
#ifndef HETSCALE_RECORD_H
#define HETSCALE_RECORD_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One rank's figures, as the contract's "ranks" entries. */
typedef struct hetscale_rank_timing {
  int rank;
  const char *host;             /* the rank's host name */
  double weight;                /* its share of the work (HETSCALE_WEIGHT) */
  double marked_speed;          /* HETSCALE_MARKED_SPEED; 0 when unknown */
  double compute_seconds;
  double communication_seconds;
  double wall_seconds;
} hetscale_rank_timing;

/* The run as a whole. */
typedef struct hetscale_run {
  const char *code;             /* your program, e.g. "heat" */
  const char *workload;         /* the formula, as in the experiment spec: "500*M^2" */
  const char *parameter;        /* the parameter's name: "M" */
  double parameter_value;       /* its value in this run */
  double work;                  /* W = workload(parameter_value), > 0 */
  double wall_seconds;          /* T of the timed region on rank 0, > 0 */
  int verified;                 /* 1 when your own answer check passed */
  const char *start_time;       /* ISO 8601 UTC ("2026-11-21T06:10:00Z") or NULL */
  const char *end_time;         /* or NULL */
} hetscale_run;

/* This rank's share of the work: HETSCALE_WEIGHT when the plugin set it, else 1/size. */
static inline double hetscale_weight(int rank, int size) {
  const char *text = getenv("HETSCALE_WEIGHT");
  char *end = NULL;
  double w = text ? strtod(text, &end) : 0.0;
  (void)rank;
  if (text == NULL || end == text || *end != '\0' || !(w >= 0.0)) return size > 0 ? 1.0 / size : 0.0;
  return w;
}

/* --- internals: a growing text buffer --------------------------------------------- */
typedef struct hetscale_buffer_ {
  char *data;
  size_t size, capacity;
  int failed;
} hetscale_buffer_;

static inline void hetscale_put_(hetscale_buffer_ *b, const char *format, ...) {
  va_list args;
  int n;
  if (b->failed) return;
  for (;;) {
    size_t room = b->capacity - b->size;
    va_start(args, format);
    n = vsnprintf(b->data ? b->data + b->size : NULL, room, format, args);
    va_end(args);
    if (n < 0) { b->failed = 1; return; }
    if ((size_t)n < room) { b->size += (size_t)n; return; }
    {
      size_t capacity = (b->capacity + (size_t)n + 1) * 2;
      char *grown = (char *)realloc(b->data, capacity);
      if (grown == NULL) { b->failed = 1; return; }
      b->data = grown;
      b->capacity = capacity;
    }
  }
}

/* A JSON string (quotes and escapes), or null. */
static inline void hetscale_put_string_(hetscale_buffer_ *b, const char *s) {
  if (s == NULL) { hetscale_put_(b, "null"); return; }
  hetscale_put_(b, "\"");
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') hetscale_put_(b, "\\%c", c);
    else if (c < 0x20) hetscale_put_(b, "\\u%04x", c);
    else hetscale_put_(b, "%c", c);
  }
  hetscale_put_(b, "\"");
}

/* A variable's value when it is all decimal digits (strtoull alone would take "-5" as a
 * huge number); *ok = 0 otherwise. */
static inline unsigned long long hetscale_env_counter_(const char *name, int *ok) {
  const char *text = getenv(name);
  char *end = NULL;
  unsigned long long v;
  int saved = errno;
  *ok = 0;
  if (text == NULL || *text < '0' || *text > '9') return 0;
  errno = 0;
  v = strtoull(text, &end, 10);
  *ok = *end == '\0' && errno == 0;
  errno = saved;
  return v;
}

/* An unsigned integer from the environment, or JSON null when unset or not a number. */
static inline void hetscale_put_env_integer_(hetscale_buffer_ *b, const char *name) {
  int ok;
  unsigned long long v = hetscale_env_counter_(name, &ok);
  if (ok) hetscale_put_(b, "%llu", v);
  else hetscale_put_(b, "null");
}

/* SLURM_STEP_ID of a numbered step; null for the steps Slurm gives no number: the batch
 * step (unset in Slurm 22.05 and 24.11, "-5" in 26.05), the extern and interactive ones
 * (ids above SLURM_MAX_NORMAL_STEP_ID, 0xfffffff0). */
static inline void hetscale_put_env_step_id_(hetscale_buffer_ *b) {
  int ok;
  unsigned long long v = hetscale_env_counter_("SLURM_STEP_ID", &ok);
  if (ok && v <= 0xfffffff0ULL) hetscale_put_(b, "%llu", v);
  else hetscale_put_(b, "null");
}


/* HETSCALE_WEIGHTS_DIGEST when it is what the plugin sets (64 lower-case hex digits). */
static inline const char *hetscale_env_digest_(void) {
  const char *text = getenv("HETSCALE_WEIGHTS_DIGEST");
  int i;
  if (text == NULL) return NULL;
  for (i = 0; i < 64; ++i)
    if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f'))) return NULL;
  return text[64] == '\0' ? text : NULL;
}

/* JSON has no inf or nan: x - x is 0 only for finite x. */
static inline int hetscale_finite_(double x) { return x - x == 0.0; }

/* A non-negative finite number from the environment; 0 (unknown) when unset or anything
 * else (garbage, a negative number, inf, nan, an overflow). */
static inline double hetscale_env_number_(const char *name) {
  const char *text = getenv(name);
  char *end = NULL;
  double v = text ? strtod(text, &end) : 0.0;
  return (text == NULL || end == text || *end != '\0' || !(v >= 0.0) || !hetscale_finite_(v)) ? 0.0 : v;
}

/* Every number the caller gives the record is finite (a JSON number): the run's and every
 * rank's (the environment's are, by hetscale_env_number_). */
static inline int hetscale_all_finite_(const hetscale_run *run, const hetscale_rank_timing *ranks, int count) {
  int i;
  if (!hetscale_finite_(run->work) || !hetscale_finite_(run->wall_seconds) || !hetscale_finite_(run->parameter_value))
    return 0;
  for (i = 0; i < count; ++i) {
    if (!hetscale_finite_(ranks[i].weight) || !hetscale_finite_(ranks[i].marked_speed) ||
        !hetscale_finite_(ranks[i].compute_seconds) || !hetscale_finite_(ranks[i].communication_seconds) ||
        !hetscale_finite_(ranks[i].wall_seconds))
      return 0;
  }
  return 1;
}

static inline int hetscale_write_record(const hetscale_run *run, const hetscale_rank_timing *ranks, int count) {
  const char *file = getenv("HETSCALE_RECORD");
  const char *repetition = getenv("HETSCALE_REPETITION");
  hetscale_buffer_ b = {NULL, 0, 0, 0};
  double system_speed;
  int i, fd, result = 0;
  if (file == NULL || *file == '\0') return 0;
  system_speed = hetscale_env_number_("HETSCALE_SYSTEM_SPEED");
  if (run == NULL || ranks == NULL || count <= 0 || run->code == NULL || run->workload == NULL ||
      run->parameter == NULL || !(run->work > 0) || !(run->wall_seconds > 0) ||
      !hetscale_all_finite_(run, ranks, count)) {
    errno = EINVAL;
    return -1;
  }
  hetscale_put_(&b, "{\"schema\":1,\"experiment\":");
  hetscale_put_string_(&b, getenv("HETSCALE_EXPERIMENT") ? getenv("HETSCALE_EXPERIMENT") : "");
  hetscale_put_(&b, ",\"code\":");
  hetscale_put_string_(&b, run->code);
  hetscale_put_(&b, ",\"workload\":");
  hetscale_put_string_(&b, run->workload);
  hetscale_put_(&b, ",\"parameters\":{");
  hetscale_put_string_(&b, run->parameter);
  hetscale_put_(&b, ":%.17g},\"work\":%.17g,\"wall_seconds\":%.17g", run->parameter_value, run->work,
                run->wall_seconds);
  hetscale_put_(&b, ",\"marked_speed\":%.17g,\"weights_source\":", system_speed);
  hetscale_put_string_(&b, getenv("HETSCALE_WEIGHTS_SOURCE") ? getenv("HETSCALE_WEIGHTS_SOURCE") : "equal");
  hetscale_put_(&b, ",\"ranks\":[");
  for (i = 0; i < count; ++i) {
    hetscale_put_(&b, "%s{\"rank\":%d,\"host\":", i ? "," : "", ranks[i].rank);
    hetscale_put_string_(&b, ranks[i].host ? ranks[i].host : "unknown");
    hetscale_put_(&b,
                  ",\"weight\":%.17g,\"marked_speed\":%.17g,\"compute_seconds\":%.17g,"
                  "\"communication_seconds\":%.17g,\"wall_seconds\":%.17g}",
                  ranks[i].weight, ranks[i].marked_speed, ranks[i].compute_seconds,
                  ranks[i].communication_seconds, ranks[i].wall_seconds);
  }
  hetscale_put_(&b, "],\"slurm\":{\"job_id\":");
  hetscale_put_env_integer_(&b, "SLURM_JOB_ID");
  hetscale_put_(&b, ",\"array_job_id\":");
  hetscale_put_env_integer_(&b, "SLURM_ARRAY_JOB_ID");
  hetscale_put_(&b, ",\"array_task_id\":");
  hetscale_put_env_integer_(&b, "SLURM_ARRAY_TASK_ID");
  hetscale_put_(&b, ",\"step_id\":");
  hetscale_put_env_step_id_(&b);
  hetscale_put_(&b, ",\"node_list\":");
  hetscale_put_string_(&b, getenv("SLURM_STEP_NODELIST") ? getenv("SLURM_STEP_NODELIST")
                           : getenv("SLURM_JOB_NODELIST") ? getenv("SLURM_JOB_NODELIST") : "");
  hetscale_put_(&b, "},\"machine_set\":");
  hetscale_put_env_integer_(&b, "HETSCALE_MACHINE_SET");
  hetscale_put_(&b, ",\"repetition\":%d", repetition ? atoi(repetition) : 0);
  if (run->start_time) { hetscale_put_(&b, ",\"start_time\":"); hetscale_put_string_(&b, run->start_time); }
  if (run->end_time) { hetscale_put_(&b, ",\"end_time\":"); hetscale_put_string_(&b, run->end_time); }
  if (hetscale_env_digest_()) {
    /* The writing rank's digest; docs/run-record.md: what the weights came from. */
    hetscale_put_(&b, ",\"weights_digest\":");
    hetscale_put_string_(&b, hetscale_env_digest_());
  }
  hetscale_put_(&b, ",\"verified\":%s}\n", run->verified ? "true" : "false");
  if (b.failed) { free(b.data); errno = ENOMEM; return -1; }
  /* One write(2) on O_APPEND: records of concurrent runs never interleave. */
  fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) result = -1;
  else {
    if (write(fd, b.data, b.size) != (ssize_t)b.size) result = -1;
    if (close(fd) != 0) result = -1;
  }
  free(b.data);
  return result;
}

#ifdef __cplusplus
}
#endif

#endif /* HETSCALE_RECORD_H */
