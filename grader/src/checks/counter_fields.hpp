// Every field of Counters (abi.h) once, with the names its readers give it: report.json's
// figures, the lines of --dump-counts (which kit.emu_equals_gpu compares between two builds)
// and the "kit:" line of --profile (which tools/ncu-shared-compare reads). A new counter is a
// field in abi.h and a row here.
#pragma once

#include <string>

#include <nlohmann/json.hpp>
#include <reduce_lab/abi.h>

namespace reduce_lab::grader {

enum class Space { global, shared };

struct CounterField {
  const char* name;  // report.json's key: "sectors", or under "shared": "wavefronts"
  Space space;
  unsigned long long (Counters::*per_kind)[kAccessKinds];  // by Access; null for a count kept once
  unsigned long long Counters::*once;
  const char* dump;   // the key in --dump-counts' lines ("sec"); null: not in them
  unsigned profiled;  // the kinds on --profile's "kit:" line, bit k for Access k
  unsigned long long get(const Counters& c, int kind) const { return per_kind ? (c.*per_kind)[kind] : c.*once; }
};

inline constexpr unsigned kLoadsStores = 0b011, kEveryKind = 0b111;

inline constexpr CounterField kCounterFields[] = {
    {"instructions", Space::global, &Counters::instructions, nullptr, "instr", 0},
    {"requests", Space::global, &Counters::requests, nullptr, "req", 0},
    {"sectors", Space::global, &Counters::sectors, nullptr, "sec", kLoadsStores},
    {"active_lanes", Space::global, &Counters::active_lanes, nullptr, "lanes", 0},
    {"bytes", Space::global, &Counters::bytes, nullptr, "bytes", 0},
    {"seam_sectors", Space::global, &Counters::seam_sectors, nullptr, "seams", 0},
    {"barrier_warps", Space::global, nullptr, &Counters::barrier_warps, "barrier_warps", 0},
    {"instructions", Space::shared, &Counters::shared_instructions, nullptr, "s_instr", 0},
    {"wavefronts", Space::shared, &Counters::shared_wavefronts, nullptr, "s_wf", kEveryKind},
    {"conflicts", Space::shared, &Counters::shared_conflicts, nullptr, "s_conf", kLoadsStores},
    {"active_lanes", Space::shared, &Counters::shared_active_lanes, nullptr, "s_lanes", 0},
    {"bytes", Space::shared, &Counters::shared_bytes, nullptr, "s_bytes", 0},
};

// The counters of one run as report.json lists them: each by kind ({"load", "store",
// "atomic"}), the shared-memory ones under "shared", and "simd_efficiency".
nlohmann::json counts_json(const Counters& c);

// The counters of one --dump-counts line: " ld:instr=1,req=1,... st:... atom:... barrier_warps=8".
std::string counts_dump_text(const Counters& c);

// The figures of --profile's "kit:" line: " global_ld_sectors=64 ... shared_st_conflicts=0".
std::string counts_profile_text(const Counters& c);

}  // namespace reduce_lab::grader
