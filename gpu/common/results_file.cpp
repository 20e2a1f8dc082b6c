#include "gpu/common/results_file.h"

#include <link.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "gpu/common/tool_thread.h"
#include "sampler/runtime/process_identity.h"

namespace cprof::gpu {

std::string output_dir_from_environment() {
  const char* dir = std::getenv("CPROF_OUTPUT_DIR");
  return dir != nullptr && *dir != '\0' ? std::string(dir) : std::string("results");
}

std::string gpu_results_stem(const std::string& dir) {
  return sampler::results_file_stem(dir, sampler::current_process_identity(), "gpu");
}

std::string GpuResultsFile::open(const std::string& stem, const std::string& engine) {
  std::unique_lock lock(mutex_);
  if (writer_.is_open()) return writer_.path() + ": already open";
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(stem).parent_path(), ec);
  if (std::string err = writer_.open_unique(stem); !err.empty()) return err;
  if (const char* ms = std::getenv("CPROF_FLUSH_MS"); ms != nullptr && std::atoi(ms) > 0) {
    flush_ms_ = static_cast<uint32_t>(std::atoi(ms));
  }
  format::ProcessRecord p = sampler::process_record_now(sampler::current_process_identity());
  p.engine = engine;  // no CPU sampling in this file: clock, frequency and period stay empty
  p.unwinder = "libunwind";
  writer_.add(p);
  modules_.refresh_if_loader_changed();
  write_new_modules_locked();
  writer_.flush();
  stop_ = false;
  thread_ = std::thread([this] { flush_thread_main(); });
  return "";
}

bool GpuResultsFile::is_open() const {
  std::lock_guard lock(mutex_);
  return writer_.is_open();
}

std::string GpuResultsFile::path() const {
  std::lock_guard lock(mutex_);
  return writer_.path();
}

uint64_t GpuResultsFile::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void GpuResultsFile::add(format::Record record) {
  std::lock_guard lock(mutex_);
  if (!writer_.is_open()) {
    ++dropped_;
    return;
  }
  pending_.push_back(std::move(record));
}

void GpuResultsFile::flush() {
  std::lock_guard lock(mutex_);
  flush_locked();
}

void GpuResultsFile::flush_locked() {
  if (!writer_.is_open()) return;
  // Modules first: a launch stack in a newly loaded library must find its module.
  modules_.refresh_if_loader_changed();
  write_new_modules_locked();
  for (auto& r : pending_) writer_.add(r);
  pending_.clear();
  writer_.flush();
}

void GpuResultsFile::write_new_modules_locked() {
  module_recorder_.write_new(modules_.snapshot(), writer_, monotonic_ns());
}

void GpuResultsFile::flush_thread_main() {
  begin_tool_thread("cprof-gpu-io");
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(flush_ms_));
    flush_locked();
  }
}

void GpuResultsFile::close() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  std::lock_guard lock(mutex_);
  flush_locked();
  writer_.close();
}

}  // namespace cprof::gpu
