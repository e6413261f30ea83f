#include "run_registry.hpp"

#include <mutex>

namespace dalmon {

RunRegistry &RunRegistry::instance() {
  // Leaked on purpose: a JS runtime may still call in from a finalizer or a
  // worker while static destructors run at exit.
  static RunRegistry *r = new RunRegistry;
  return *r;
}

int64_t RunRegistry::add(std::shared_ptr<Monitor> m) {
  int64_t id = next_.fetch_add(1, std::memory_order_relaxed);
  std::unique_lock lk(mu_);
  runs_.emplace(id, std::move(m));
  return id;
}

std::shared_ptr<Monitor> RunRegistry::find(int64_t id) const {
  std::shared_lock lk(mu_);
  auto it = runs_.find(id);
  return it == runs_.end() ? nullptr : it->second;
}

bool RunRegistry::remove(int64_t id) {
  std::shared_ptr<Monitor> victim;  // destroyed outside the lock
  std::unique_lock lk(mu_);
  auto it = runs_.find(id);
  if (it == runs_.end()) return false;
  victim = std::move(it->second);
  runs_.erase(it);
  lk.unlock();
  return true;
}

}  // namespace dalmon
