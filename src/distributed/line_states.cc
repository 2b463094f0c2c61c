// SPDX-License-Identifier: Apache-2.0
#include "distributed/line_states.h"

namespace neardup::distributed {

std::vector<uint8_t> ShareSkips(Comm& c, batch::RecordErrors* errors, batch::LineTable* lines) {
  std::vector<uint32_t> skipped;
  std::vector<uint8_t> messages;
  for (const auto& [line, s] : errors->TakeSkips()) {
    skipped.push_back(static_cast<uint32_t>(line));
    AppendPod(line, &messages);
    AppendPod(static_cast<int32_t>(s.code()), &messages);
    AppendString(s.message(), &messages);
  }
  for (uint32_t d : FromBytes<uint32_t>(c.AllGather(AsBytes(skipped)))) {
    lines->set_state(d, batch::kSkipped);
  }
  return c.Gather(messages);
}

void DeliverSkips(const Comm& c, const std::vector<uint8_t>& all,
                  const std::function<void(const Status&)>& on_skip) {
  if (c.rank() != 0) return;
  batch::RecordErrors skips;
  for (MessageReader r(all); !r.done();) {
    const uint64_t line = r.Pod<uint64_t>();
    const auto code = static_cast<StatusCode>(r.Pod<int32_t>());
    skips.AddSkip(line, Status(code, std::string(r.String())));
  }
  skips.DeliverSkips(on_skip);
}

}  // namespace neardup::distributed
