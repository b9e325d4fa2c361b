// The timed build's global-memory traffic against the counted build's, measured before the speed
// test, beside the other untimed tests (design §13).
//
// The speed test times only the code the counters saw. One half of that is which kernels run:
// the speed test compares the launches of its own first timed run with the counted build's
// (speed_gate.hpp). The other half is what those kernels do: Nsight Compute reads the GPU's
// counters for the timed build's whole reduction, in a process of its own, and its load and store
// traffic must equal what the kit counted in the counted build. That takes ncu seconds per lab
// (its start and a replay of every kernel), and needs no GPU to itself: the counters are the
// profiled context's own (two processes loading the GPU fully beside it changed no count of
// labs 3, 4, 7 or 8 on an H200). So a test of its own on a GPU, lab<N>.traffic
// (labgrader --timed-traffic LAB), measures it beside the untimed tests once the lab's requests
// test has run, and records the result as lab<N>.timed_traffic, tied like every verdict to the
// file it judged; the speed test, which has the GPU to itself, only reads it. ncu profiles one
// process at a time, system-wide: the grader takes the machine's turn just before it starts
// ncu (measure/ncu_turn.hpp) and holds it only for the measurement, not for the counted runs, so
// the traffic tests run side by side. A broken-lab case's traffic part is the same. In the kit's own
// GPU suite one ncu run profiles every such build ahead of these tests (kit.traffic_batch,
// tests/traffic_batch.cpp), and a test takes its counts from it (measure/profiled_counts.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/inputs.hpp"

#include "base/verdict.hpp"

namespace reduce_lab::grader {

// The record's name beside the lab's tests: REDUCE_LAB_RESULTS_DIR/lab<N>.timed_traffic. Inline:
// a grader built without the speed tests (speed_absent.cpp) names it too.
inline constexpr const char* kTimedTrafficRecord = "timed_traffic";

// The shapes at which lab `lab`'s timed build is compared (those below, less any a row lab leaves
// out): what a shared ncu run measures ahead of the traffic tests (tests/traffic_batch.cpp).
std::vector<Shape> compared_shapes(int lab);

// The comparison at the shapes the lab's speed test times (n = the benchmark size; a row lab's
// matrices; a sweep's largest size; a variant lab's first variant):
//  PASS: equal at each, the figures in the message;
//  SKIP: not compared, and why (no ncu, counters not readable, no GPU backend);
//  FAIL: other traffic (figures "outcome": "differs", the difference in the message), or the
//        counted build failed at that shape ("counted_failed").
Verdict measure_timed_traffic(int lab);

// Measures and records it, where lab `lab` has a speed test and this grader times on a GPU (else
// nullopt). Before it measures it records that the comparison did not finish, so a process
// stopped midway leaves a failed record, never an earlier one. It is no check's verdict
// (records.hpp: record_beside), so it never appears in the table; the speed test names it.
std::optional<Verdict> record_timed_traffic(int lab);

}  // namespace reduce_lab::grader
