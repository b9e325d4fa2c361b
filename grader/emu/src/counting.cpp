// Global accesses: the bounds check every kernel access goes through, and the grouping of
// each warp's accesses into the warp-level instructions a GPU would issue (design §4).
//
// A fiber runs alone, so the emulator never sees a warp's lanes execute an instruction
// together. It reconstructs that instead: every access is logged with its call site (the
// return address into the lab's code) and how often that lane has passed the site since
// its warp last converged. When the whole warp meets again (a __syncthreads, a collective
// covering every live lane, or the end of the block), the n-th pass of a site by each lane
// becomes one instruction, and its requests and sectors are the distinct 128-byte segments
// and 32-byte sectors its lanes touched, and its seam sectors those at the ends of the one
// contiguous run its lanes read (if they read one), exactly as the gpu-counted build counts them.

#include "internal.h"

#include <reduce_lab/warp_tally.h>

#include <cstdio>
#include <stdexcept>

namespace reduce_emu {
namespace detail {

namespace {

const char* access_name(reduce_lab::Access kind) {
  switch (kind) {
    case reduce_lab::Access::load: return "load";
    case reduce_lab::Access::store: return "store";
    case reduce_lab::Access::atomic: return "atomic";
  }
  return "access";
}

// What a race message says a thread did, now and before.
const char* access_verb(reduce_lab::Access kind, bool before) {
  switch (kind) {
    case reduce_lab::Access::load: return before ? "loaded" : "loads";
    case reduce_lab::Access::store: return before ? "stored to" : "stores to";
    case reduce_lab::Access::atomic: return before ? "atomically updated" : "atomically updates";
  }
  return "accessed";
}

// CUDA's (x,y,z) of the linear index of a block in its grid, or a thread in its block.
uint3 unflatten(unsigned long long linear, dim3 extent) {
  return uint3{static_cast<unsigned>(linear % extent.x), static_cast<unsigned>((linear / extent.x) % extent.y),
               static_cast<unsigned>(linear / (1ull * extent.x * extent.y))};
}

// Floor division, so one element before the allocation is index -1, not 0.
long long element_index(std::uintptr_t address, std::uintptr_t base, unsigned bytes) {
  const long long offset = static_cast<long long>(address - base);
  const long long size = static_cast<long long>(bytes);
  return offset >= 0 ? offset / size : -((-offset + size - 1) / size);
}

std::size_t hash_key(const void* site, unsigned occurrence, unsigned kind) {
  std::uint64_t h = reinterpret_cast<std::uintptr_t>(site) * 0x9E3779B97F4A7C15ull;
  h ^= (static_cast<std::uint64_t>(occurrence) << 2 | kind) * 0xC2B2AE3D27D4EB4Full;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

}  // namespace

void* Runner::check_bounds(const Thread& thread, reduce_lab::Access kind, std::uintptr_t address, unsigned bytes,
                           const void* origin) {
  const std::uintptr_t from = reinterpret_cast<std::uintptr_t>(origin);
  const unsigned long long generation = allocation_generation.load(std::memory_order_acquire);
  std::uintptr_t base = 0, end = 0, kit = 0;
  AllocationShadow* shadow = nullptr;
  bool known = false, read_only = false;
  for (const CachedAllocation& entry : cache_) {
    if (entry.generation == generation && from >= entry.base && from <= entry.end) {
      base = entry.base;
      end = entry.end;
      kit = entry.kit;
      shadow = entry.shadow;
      read_only = entry.read_only;
      known = true;
      break;
    }
  }
  if (!known) {
    Allocation found;
    if (!find_allocation(origin, &found)) {
      char text[256];
      std::snprintf(text, sizeof text,
                    "global %s of %u bytes at %p through a Global made from %p, which is not inside any live "
                    "cudaMalloc allocation (freed, a host pointer, or never allocated); the access was not "
                    "performed",
                    access_name(kind), bytes, reinterpret_cast<const void*>(address), origin);
      fault_in_fiber(thread, text);
    }
    base = found.base;
    end = found.base + found.bytes;
    kit = found.kit;
    shadow = found.shadow;
    read_only = base == launch->read_only_base;
    // The first access of this runner to the allocation in this launch.
    if (checking_races && shadow != nullptr) shadow->begin(launch->races->serial());
    cache_[cache_next_++ % 4] = CachedAllocation{base, end, kit, shadow, generation, read_only};
  }
  if (address >= base && address + bytes <= end && address + bytes >= address) {
    // Nothing in the launch stores to the lab's input (a store is a fault, and lab code reaches
    // it only as a Global<const T>), so its loads cannot race and are not checked.
    if (read_only) {
      if (kind != reduce_lab::Access::load) read_only_fault(thread, kind, address, bytes, base, end);
    } else if (checking_races && shadow != nullptr) {
      check_block_race(thread, kind, address, bytes, base, end, *shadow);
    }
    return reinterpret_cast<void*>(kit + (address - base));
  }

  const unsigned long long elements = (end - base) / bytes;
  const long long index = element_index(address, base, bytes);
  char text[512];
  int length = std::snprintf(text, sizeof text,
                             "out-of-bounds global %s: element %lld of an allocation of %llu elements (%llu bytes, "
                             "%u-byte elements); valid indices are 0 to %lld",
                             access_name(kind), index, elements, static_cast<unsigned long long>(end - base), bytes,
                             static_cast<long long>(elements) - 1);
  if (from != base && length > 0 && static_cast<std::size_t>(length) < sizeof text)
    length += std::snprintf(text + length, sizeof text - static_cast<std::size_t>(length),
                            " (the Global was made from element %lld of it)", element_index(from, base, bytes));
  if (length > 0 && static_cast<std::size_t>(length) < sizeof text)
    std::snprintf(text + length, sizeof text - static_cast<std::size_t>(length), "; the access was not performed");
  fault_in_fiber(thread, text);
}

void Runner::read_only_fault(const Thread& thread, reduce_lab::Access kind, std::uintptr_t address, unsigned bytes,
                             std::uintptr_t base, std::uintptr_t end) {
  fault_in_fiber(thread, std::string(kind == reduce_lab::Access::atomic ? "atomic update of" : "store to") +
                             " the lab's input: element " + std::to_string(element_index(address, base, bytes)) +
                             " of an allocation of " + std::to_string((end - base) / bytes) + " " +
                             std::to_string(bytes) +
                             "-byte elements, which the lab only reads (its parameter is a Global<const T>); "
                             "the access was not performed");
}

void Runner::check_block_race(const Thread& thread, reduce_lab::Access kind, std::uintptr_t address,
                              unsigned bytes, std::uintptr_t base, std::uintptr_t end, AllocationShadow& shadow) {
  Conflict conflict;
  if (block_races_.access(shadow, base, address - base, bytes, kind, thread.linear, &conflict)) return;
  const LaunchState& L = *launch;
  fault_in_fiber(
      thread,
      "race between blocks: thread " + coords_text(thread.coords.thread_index) + " of block " +
          coords_text(block_index_) + " " + access_verb(kind, false) + " element " +
          std::to_string(element_index(address, base, bytes)) + " of an allocation of " +
          std::to_string((end - base) / bytes) + " " + std::to_string(bytes) + "-byte elements, which thread " +
          coords_text(unflatten(conflict.other_thread, L.block)) + " of block " +
          coords_text(unflatten(conflict.other_block, L.grid)) + " " + access_verb(conflict.before, true) +
          " in the same launch, and nothing orders the two. Blocks of a launch run in no set order and at the same "
          "time: they combine values with atomics (one atomicAdd per block), and a block reads what another stored "
          "only after that block's __threadfence() and an atomic that its own atomic on the same word observes; the "
          "access was not performed");
}

void Runner::log_access(Thread& thread, reduce_lab::Access kind, std::uintptr_t address, unsigned bytes,
                        const void* site, const void* data) {
  const unsigned k = static_cast<unsigned>(kind);
  std::vector<SiteCount>& sites = thread.sites;
  const std::size_t n = sites.size();
  unsigned occurrence = 0;
  bool found = false;
  // Sites recur in the same order loop after loop, so the next one is usually just past
  // the last one found.
  std::size_t i = thread.last_site + 1;
  for (std::size_t step = 0; step < n; ++step, ++i) {
    if (i >= n) i = 0;
    if (sites[i].site == site && sites[i].kind == k) {
      occurrence = sites[i].count++;
      thread.last_site = static_cast<unsigned>(i);
      found = true;
      break;
    }
  }
  if (!found) {
    sites.push_back(SiteCount{site, k, 1});
    thread.last_site = static_cast<unsigned>(n);
  }
  warps_[thread.warp].log.push_back(
      AccessRecord{address, site, occurrence, static_cast<unsigned char>(thread.lane), static_cast<unsigned char>(k),
                   static_cast<unsigned short>(bytes)});
  if (recording) record_access(thread, k, address, bytes, data);
}

void Runner::flush(Warp& warp, unsigned warp_index) {
  if (warp.log.empty()) return;
  if (slot_of_.empty()) {
    slot_of_.assign(256, 0);
    slot_stamp_.assign(256, 0);
  }
  instructions_.clear();
  if (++stamp_ == 0) {
    std::fill(slot_stamp_.begin(), slot_stamp_.end(), 0u);
    stamp_ = 1;
  }
  auto slot_for = [this](const void* site, unsigned occurrence, unsigned kind) -> std::size_t {
    const std::size_t mask = slot_of_.size() - 1;
    for (std::size_t h = hash_key(site, occurrence, kind) & mask;; h = (h + 1) & mask) {
      if (slot_stamp_[h] != stamp_) return h;
      const Instruction& ins = instructions_[static_cast<std::size_t>(slot_of_[h])];
      if (ins.site == site && ins.occurrence == occurrence && ins.kind == kind) return h;
    }
  };
  for (const AccessRecord& record : warp.log) {
    std::size_t h = slot_for(record.site, record.occurrence, record.kind);
    if (slot_stamp_[h] != stamp_) {
      if ((instructions_.size() + 1) * 2 > slot_of_.size()) {
        // Keep the table at most half full: rebuild it twice as large.
        slot_of_.assign(slot_of_.size() * 2, 0);
        slot_stamp_.assign(slot_stamp_.size() * 2, 0);
        for (std::size_t i = 0; i < instructions_.size(); ++i) {
          const Instruction& ins = instructions_[i];
          const std::size_t free_slot = slot_for(ins.site, ins.occurrence, ins.kind);
          slot_stamp_[free_slot] = stamp_;
          slot_of_[free_slot] = static_cast<int>(i);
        }
        h = slot_for(record.site, record.occurrence, record.kind);
      }
      slot_stamp_[h] = stamp_;
      slot_of_[h] = static_cast<int>(instructions_.size());
      Instruction fresh;
      fresh.kind = record.kind;
      fresh.site = record.site;
      fresh.occurrence = record.occurrence;
      fresh.count = 0;
      fresh.bytes = record.bytes;
      instructions_.push_back(fresh);
    }
    Instruction& ins = instructions_[static_cast<std::size_t>(slot_of_[h])];
    if (ins.count < 32) {
      ins.lanes[ins.count] = record.lane;
      ins.addresses[ins.count++] = record.address;
    }
  }
  // The counts themselves come from WarpTally, the one definition the book models share.
  reduce_lab::WarpTally tally;
  for (const Instruction& ins : instructions_) {
    if (ins.kind >= kSharedKindBase) {
      count_shared_instruction(ins, totals);
      continue;
    }
    for (unsigned i = 0; i < ins.count; ++i) tally.add(ins.addresses[i], ins.bytes);
    tally.flush(static_cast<reduce_lab::Access>(ins.kind), totals);
  }
  // The runner hands its other totals to the launch's counters when its blocks are done
  // (scheduler.cpp, field by field); seam sectors go there from here, as they are found.
  for (int k = 0; k < reduce_lab::kAccessKinds; ++k) {
    if (totals.seam_sectors[k] == 0) continue;
    if (launch != nullptr && launch->counters != nullptr)
      __atomic_fetch_add(&launch->counters->seam_sectors[k], totals.seam_sectors[k], __ATOMIC_RELAXED);
    totals.seam_sectors[k] = 0;
  }
  if (recording) record_flush(warp, warp_index);  // the same instructions, into the record
  warp.log.clear();
  const unsigned first = warp_index * 32;
  for (unsigned lane = 0; lane < 32 && first + lane < thread_count_; ++lane) {
    Thread& t = threads_[first + lane];
    t.sites.clear();
    t.last_site = 0;
  }
}

}  // namespace detail
}  // namespace reduce_emu

namespace reduce_emu {

void* count_access(reduce_lab::Access kind, const void* address, unsigned bytes, const void* origin) {
  using namespace detail;
  Thread* thread = current_thread;
  if (thread == nullptr) {
    // Host code holds device pointers but cannot dereference them, on a GPU as here.
    throw std::runtime_error(
        "host code accessed device memory through a Global<T> (outside any kernel); on a GPU this "
        "crashes: read results with cudaMemcpy, or do the work in a kernel");
  }
  Runner& runner = *thread->runner;
  const std::uintptr_t where = reinterpret_cast<std::uintptr_t>(address);
  void* kit = runner.check_bounds(*thread, kind, where, bytes, origin);
  if ((++runner.access_tick & 1023) == 0) runner.check_clock_in_fiber(*thread);
  if (runner.counting) runner.log_access(*thread, kind, where, bytes, __builtin_return_address(0), kit);
  return kit;
}

}  // namespace reduce_emu
