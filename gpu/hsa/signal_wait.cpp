#include "gpu/hsa/signal_wait.h"

#include <atomic>
#include <cstddef>

#include "gpu/common/causal_wait.h"

namespace cprof::gpu::hsa {
namespace {

// The runtime's own functions (a second OnLoad, after hsa_shut_down and hsa_init, may
// replace them). Never our wrappers: wrapping twice would call ourselves.
std::atomic<decltype(hsa_signal_wait_scacquire)*> g_wait_scacquire{nullptr};
std::atomic<decltype(hsa_signal_wait_relaxed)*> g_wait_relaxed{nullptr};
std::atomic<decltype(hsa_signal_group_wait_any_scacquire)*> g_group_scacquire{nullptr};
std::atomic<decltype(hsa_signal_group_wait_any_relaxed)*> g_group_relaxed{nullptr};
std::atomic<decltype(hsa_amd_signal_wait_any)*> g_amd_wait_any{nullptr};

hsa_signal_value_t wait_scacquire(hsa_signal_t signal, hsa_signal_condition_t condition,
                                  hsa_signal_value_t compare, uint64_t timeout_hint,
                                  hsa_wait_state_t wait_state_hint) {
  CausalDeviceWait wait;
  return g_wait_scacquire.load(std::memory_order_acquire)(signal, condition, compare,
                                                          timeout_hint, wait_state_hint);
}

hsa_signal_value_t wait_relaxed(hsa_signal_t signal, hsa_signal_condition_t condition,
                                hsa_signal_value_t compare, uint64_t timeout_hint,
                                hsa_wait_state_t wait_state_hint) {
  CausalDeviceWait wait;
  return g_wait_relaxed.load(std::memory_order_acquire)(signal, condition, compare, timeout_hint,
                                                        wait_state_hint);
}

hsa_status_t group_wait_any_scacquire(hsa_signal_group_t group,
                                      const hsa_signal_condition_t* conditions,
                                      const hsa_signal_value_t* compare_values,
                                      hsa_wait_state_t wait_state_hint, hsa_signal_t* signal,
                                      hsa_signal_value_t* value) {
  CausalDeviceWait wait;
  return g_group_scacquire.load(std::memory_order_acquire)(group, conditions, compare_values,
                                                           wait_state_hint, signal, value);
}

hsa_status_t group_wait_any_relaxed(hsa_signal_group_t group,
                                    const hsa_signal_condition_t* conditions,
                                    const hsa_signal_value_t* compare_values,
                                    hsa_wait_state_t wait_state_hint, hsa_signal_t* signal,
                                    hsa_signal_value_t* value) {
  CausalDeviceWait wait;
  return g_group_relaxed.load(std::memory_order_acquire)(group, conditions, compare_values,
                                                         wait_state_hint, signal, value);
}

uint32_t amd_wait_any(uint32_t signal_count, hsa_signal_t* signals, hsa_signal_condition_t* conds,
                      hsa_signal_value_t* values, uint64_t timeout_hint,
                      hsa_wait_state_t wait_hint, hsa_signal_value_t* satisfying_value) {
  CausalDeviceWait wait;
  return g_amd_wait_any.load(std::memory_order_acquire)(signal_count, signals, conds, values,
                                                        timeout_hint, wait_hint, satisfying_value);
}

// Whether a table of `size` bytes (its version's minor_id) holds `member`.
template <typename Table, typename Fn>
bool holds(const Table* table, Fn Table::*member) {
  if (table == nullptr) return false;
  const auto end = reinterpret_cast<const char*>(&(table->*member)) + sizeof(Fn);
  return static_cast<size_t>(end - reinterpret_cast<const char*>(table)) <= table->version.minor_id;
}

// Saves the table's function as the original and puts the wrapper in its place.
template <typename Table, typename Fn>
int wrap(Table* table, Fn Table::*member, std::atomic<Fn>& original, Fn wrapper) {
  if (!holds(table, member)) return 0;
  Fn current = table->*member;
  if (current == nullptr) return 0;
  if (current != wrapper) original.store(current, std::memory_order_release);
  table->*member = wrapper;
  return 1;
}

}  // namespace

int install_signal_waits(HsaApiTable* table) {
  if (!find_causal_runtime()) return 0;
  CoreApiTable* core = table->core_;
  AmdExtTable* amd = table->amd_ext_;
  int n = 0;
  n += wrap(core, &CoreApiTable::hsa_signal_wait_scacquire_fn, g_wait_scacquire, &wait_scacquire);
  n += wrap(core, &CoreApiTable::hsa_signal_wait_relaxed_fn, g_wait_relaxed, &wait_relaxed);
  n += wrap(core, &CoreApiTable::hsa_signal_group_wait_any_scacquire_fn, g_group_scacquire,
            &group_wait_any_scacquire);
  n += wrap(core, &CoreApiTable::hsa_signal_group_wait_any_relaxed_fn, g_group_relaxed,
            &group_wait_any_relaxed);
  n += wrap(amd, &AmdExtTable::hsa_amd_signal_wait_any_fn, g_amd_wait_any, &amd_wait_any);
  return n;
}

}  // namespace cprof::gpu::hsa
