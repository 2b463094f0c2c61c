// SPDX-License-Identifier: Apache-2.0
#include "distributed/comm.h"

#include <algorithm>

namespace neardup::distributed {

Status Agree(Comm& c, const Status& local, uint64_t line) {
  // UINT64_MAX is "no error": an error at that line still counts.
  const uint64_t mine = local.ok() ? UINT64_MAX : std::min<uint64_t>(line, UINT64_MAX - 1);
  const uint64_t first = c.AllReduce(mine, ReduceOp::kMin);
  if (first == UINT64_MAX) return Status::OK();
  const uint64_t candidate = mine == first ? c.rank() : c.size();
  const int who = static_cast<int>(c.AllReduce(candidate, ReduceOp::kMin));
  std::string bytes;
  if (c.rank() == who) {
    const auto code = static_cast<int32_t>(local.code());
    bytes.assign(reinterpret_cast<const char*>(&code), sizeof code);
    bytes += local.message();
  }
  c.Broadcast(&bytes, who);
  int32_t code = 0;
  std::memcpy(&code, bytes.data(), sizeof code);
  return Status(static_cast<StatusCode>(code), bytes.substr(sizeof code));
}

std::vector<uint32_t> Query(Comm& c, std::span<const uint32_t> ids,
                            const std::function<int(uint32_t)>& owner,
                            const std::function<uint32_t(uint32_t)>& answer) {
  return QueryAs<uint32_t>(c, ids, owner, answer);
}

}  // namespace neardup::distributed
