"""The Python record helper (jobgen/helpers/hetscale_record.py) without MPI: what write() and
weight() pass to libhetscale_record and get back. Run by CTest (jobgen.record_helper_python)
with PYTHONPATH at jobgen/helpers and LD_LIBRARY_PATH at the built library."""

import errno
import json
import os
import tempfile
import unittest

import hetscale_record as hr

ENVIRONMENT = {
    "HETSCALE_EXPERIMENT": "heat-py", "HETSCALE_MACHINE_SET": "3", "HETSCALE_REPETITION": "1",
    "HETSCALE_SYSTEM_SPEED": "40", "HETSCALE_WEIGHTS_SOURCE": "marked", "SLURM_JOB_ID": "17",
}


class RecordHelper(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.file = os.path.join(self.directory.name, "runs.jsonl")
        self.saved = {name: os.environ.get(name) for name in
                      list(ENVIRONMENT) + ["HETSCALE_RECORD", "HETSCALE_WEIGHT"]}
        os.environ.update(ENVIRONMENT)
        os.environ["HETSCALE_RECORD"] = self.file

    def tearDown(self):
        for name, value in self.saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self.directory.cleanup()

    def records(self):
        with open(self.file, encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def test_writes_the_run_and_every_rank(self):
        run = hr.Run("heat", "500*M^2", "M", 1000, 5e8, 2.5, verified=True,
                     start_time="2026-11-21T06:10:00Z")
        hr.write(run, [hr.RankTiming(0, "node-long-name", 0.75, 1.5, 0.25, 2.0, 30.0),
                       hr.RankTiming(1, 'n"2', 0.25, 1.4, 0.5, 2.1)])
        [r] = self.records()
        self.assertEqual((r["schema"], r["experiment"], r["code"], r["workload"]),
                         (1, "heat-py", "heat", "500*M^2"))
        self.assertEqual((r["parameters"], r["work"], r["wall_seconds"], r["marked_speed"]),
                         ({"M": 1000.0}, 5e8, 2.5, 40.0))
        self.assertEqual(r["ranks"], [
            {"rank": 0, "host": "node-long-name", "weight": 0.75, "marked_speed": 30.0,
             "compute_seconds": 1.5, "communication_seconds": 0.25, "wall_seconds": 2.0},
            {"rank": 1, "host": 'n"2', "weight": 0.25, "marked_speed": 0.0,
             "compute_seconds": 1.4, "communication_seconds": 0.5, "wall_seconds": 2.1}])
        self.assertEqual((r["machine_set"], r["repetition"], r["slurm"]["job_id"]), (3, 1, 17))
        self.assertEqual((r["start_time"], r["verified"]), ("2026-11-21T06:10:00Z", True))
        self.assertNotIn("end_time", r)

    def test_bad_figures_raise_the_c_helpers_error(self):
        with self.assertRaises(OSError) as caught:
            hr.write(hr.Run("heat", "500*M^2", "M", 1000, float("nan"), 2.5), [hr.RankTiming(0, "n1", 1, 1, 0, 1)])
        self.assertEqual(caught.exception.errno, errno.EINVAL)
        with self.assertRaises(OSError):
            hr.write(hr.Run("heat", "500*M^2", "M", 1000, 5e8, 2.5), [])
        self.assertFalse(os.path.exists(self.file))

    def test_a_rank_figure_that_is_not_finite_writes_nothing(self):
        run = hr.Run("heat", "500*M^2", "M", 1000, 5e8, 2.5)
        for rank in (hr.RankTiming(1, "n2", float("nan"), 1, 0, 1), hr.RankTiming(1, "n2", 0.5, 1, 0, float("inf")),
                     hr.RankTiming(1, "n2", 0.5, 1, float("-inf"), 1, 10.0),
                     hr.RankTiming(1, "n2", 0.5, 1, 0, 1, float("inf"))):
            with self.assertRaises(OSError) as caught:
                hr.write(run, [hr.RankTiming(0, "n1", 0.5, 1, 0, 1), rank])
            self.assertEqual(caught.exception.errno, errno.EINVAL, rank)
        self.assertFalse(os.path.exists(self.file))

    def test_a_marked_speed_that_is_not_finite_reads_as_unknown(self):
        # The environment's figure, not the program's: it reads as 0 (unknown), as garbage does.
        run = hr.Run("heat", "500*M^2", "M", 1000, 5e8, 2.5)
        os.environ["HETSCALE_SYSTEM_SPEED"] = "inf"
        hr.write(run, [hr.RankTiming(0, "n1", 1, 1, 0, 1)])
        with open(self.file, encoding="utf-8") as written:
            records = [json.loads(line) for line in written]
        self.assertEqual(len(records), 1)
        self.assertEqual(records[0]["marked_speed"], 0)

    def test_nothing_is_written_outside_a_study(self):
        del os.environ["HETSCALE_RECORD"]
        hr.write(hr.Run("heat", "500*M^2", "M", 1000, 5e8, 2.5), [hr.RankTiming(0, "n1", 1, 1, 0, 1)])
        self.assertFalse(os.path.exists(self.file))

    def test_weight_comes_from_the_plugin_or_is_equal(self):
        self.assertEqual(hr.weight(0, 4), 0.25)
        os.environ["HETSCALE_WEIGHT"] = "0.62500000000000000"
        self.assertEqual(hr.weight(0, 4), 0.625)
        os.environ["HETSCALE_WEIGHT"] = "lots"
        self.assertEqual(hr.weight(0, 4), 0.25)


if __name__ == "__main__":
    unittest.main()
