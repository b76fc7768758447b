// A map that forgets its oldest keys past a capacity, so links kept between records (correlation
// and sync ids) never grow without bound however long a program runs. O(1) amortized per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>

namespace streamscope {

template <typename V>
class BoundedMap {
 public:
  explicit BoundedMap(size_t capacity) : capacity_(capacity) {}
  V* find(uint64_t key) {
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : &it->second.value;
  }
  /** The key's value, made (and the oldest key forgotten past the capacity) when absent. */
  V& at(uint64_t key) {
    return at(key, [](const V&) {});
  }
  /** As at(key); `onEvict` sees the value of a key forgotten at the capacity (to count it). */
  template <typename F>
  V& at(uint64_t key, F&& onEvict) {
    auto it = map_.find(key);
    if (it != map_.end()) return it->second.value;
    if (order_.size() >= capacity_) {
      // Only the slot of the entry's own insertion removes it: a key erased and made again
      // left an older slot behind, which must not take the newer entry with it.
      auto [oldKey, oldGeneration] = order_.front();
      order_.pop_front();
      auto old = map_.find(oldKey);
      if (old != map_.end() && old->second.generation == oldGeneration) {
        onEvict(old->second.value);
        map_.erase(old);
        evicted_++;
      }
    }
    uint64_t generation = nextGeneration_++;
    order_.emplace_back(key, generation);
    Entry& e = map_[key];
    e.generation = generation;
    return e.value;
  }
  /** Forgets the key; its slot in the order expires harmlessly. */
  void erase(uint64_t key) { map_.erase(key); }
  size_t size() const { return map_.size(); }
  size_t capacity() const { return capacity_; }
  /** Calls f(value) for every entry held (the self-test's footprint). */
  template <typename F>
  void forEach(F&& f) const {
    for (const auto& [key, entry] : map_) f(entry.value);
  }
  /** Entries forgotten at the capacity while still held (links that could no longer be made). */
  uint64_t evicted() const { return evicted_; }

 private:
  struct Entry {
    V value{};
    uint64_t generation = 0;
  };
  size_t capacity_;
  uint64_t nextGeneration_ = 0;
  uint64_t evicted_ = 0;
  std::unordered_map<uint64_t, Entry> map_;
  std::deque<std::pair<uint64_t, uint64_t>> order_;  // key, generation of that insertion
};

}  // namespace streamscope
