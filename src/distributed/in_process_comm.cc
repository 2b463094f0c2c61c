// SPDX-License-Identifier: Apache-2.0
#include "distributed/in_process_comm.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace neardup::distributed {
namespace {

// What the ranks of one job share: the barrier and one input slot each.
class World {
 public:
  explicit World(int size) : size_(size), slots_(size, nullptr) {}
  int size() const { return size_; }

  // Publishes `input` for `rank`, waits for every rank, runs `read` (which
  // may read every rank's input), waits again.
  void Collective(int rank, const void* input, const std::function<void()>& read) {
    slots_[rank] = input;
    Barrier();
    read();
    Barrier();
  }
  template <typename T>
  const T& Slot(int rank) const {
    return *static_cast<const T*>(slots_[rank]);
  }

 private:
  void Barrier() {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t generation = generation_;
    if (++arrived_ == size_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation_ != generation; });
  }

  const int size_;
  std::vector<const void*> slots_;
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
};

class ThreadComm final : public Comm {
 public:
  ThreadComm(World* world, int rank) : world_(world), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return world_->size(); }
  int LocalSize() override { return world_->size(); }

  uint64_t AllReduce(uint64_t v, ReduceOp op) override {
    uint64_t out = 0;
    world_->Collective(rank_, &v, [&] {
      out = world_->Slot<uint64_t>(0);
      for (int r = 1; r < size(); ++r) {
        const uint64_t x = world_->Slot<uint64_t>(r);
        out = op == ReduceOp::kSum   ? out + x
              : op == ReduceOp::kMax ? std::max(out, x)
                                     : std::min(out, x);
      }
    });
    return out;
  }

  std::vector<uint8_t> AllGather(std::span<const uint8_t> mine) override {
    return Concat(mine, true);
  }
  std::vector<uint8_t> Gather(std::span<const uint8_t> mine) override {
    return Concat(mine, rank_ == 0);
  }

  std::vector<uint8_t> Exchange(const std::vector<std::vector<uint8_t>>& out,
                                std::vector<size_t>* from) override {
    std::vector<uint8_t> in;
    std::vector<size_t> sizes(size());
    world_->Collective(rank_, &out, [&] {
      for (int r = 0; r < size(); ++r) {
        const std::vector<uint8_t>& part =
            world_->Slot<std::vector<std::vector<uint8_t>>>(r)[rank_];
        in.insert(in.end(), part.begin(), part.end());
        sizes[r] = part.size();
      }
    });
    if (from != nullptr) *from = std::move(sizes);
    return in;
  }

  void Broadcast(std::string* bytes, int root) override {
    std::string got;
    world_->Collective(rank_, bytes, [&] { got = world_->Slot<std::string>(root); });
    *bytes = std::move(got);
  }

 private:
  std::vector<uint8_t> Concat(std::span<const uint8_t> mine, bool here) {
    std::vector<uint8_t> all;
    world_->Collective(rank_, &mine, [&] {
      if (!here) return;
      for (int r = 0; r < size(); ++r) {
        const auto& part = world_->Slot<std::span<const uint8_t>>(r);
        all.insert(all.end(), part.begin(), part.end());
      }
    });
    return all;
  }

  World* world_;
  int rank_;
};

}  // namespace

void RunInProcess(int ranks, const std::function<void(Comm&)>& fn) {
  World world(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&world, &fn, r] {
      ThreadComm comm(&world, r);
      fn(comm);
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace neardup::distributed
