// SPDX-License-Identifier: Apache-2.0
#include "distributed/comm.h"

namespace neardup::distributed {

Status Agree(Comm& c, const Status& local, uint64_t line) {
  const uint64_t mine = local.ok() ? UINT64_MAX : line;
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
  std::vector<std::vector<uint8_t>> out(c.size());
  for (uint32_t id : ids) AppendPod(id, &out[owner(id)]);
  std::vector<size_t> from;
  std::vector<uint32_t> asked = FromBytes<uint32_t>(c.Exchange(out, &from));
  for (uint32_t& v : asked) v = answer(v);
  // Answers back to the askers, in the order they asked.
  std::vector<std::vector<uint8_t>> back(c.size());
  size_t k = 0;
  for (int r = 0; r < c.size(); ++r) {
    for (size_t b = 0; b < from[r]; b += sizeof(uint32_t)) AppendPod(asked[k++], &back[r]);
  }
  return FromBytes<uint32_t>(c.Exchange(back));
}

}  // namespace neardup::distributed
