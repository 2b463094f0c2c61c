// SPDX-License-Identifier: Apache-2.0
// The store's row encodings (rows.h): fixed 64-bit little-endian integers
// and length-prefixed strings (varint32).
#include "store/rows.h"

namespace neardup::store {
namespace {

void PutFixed64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, 8);
}
void PutVarString(std::string* out, std::string_view s) {
  uint32_t n = static_cast<uint32_t>(s.size());
  while (n >= 0x80) {
    out->push_back(static_cast<char>(n | 0x80));
    n >>= 7;
  }
  out->push_back(static_cast<char>(n));
  out->append(s);
}

// A cursor over an encoded value; every Get fails cleanly at the end.
struct Reader {
  std::string_view in;
  bool Fixed64(uint64_t* v) {
    if (in.size() < 8) return false;
    *v = 0;
    for (int i = 7; i >= 0; --i) *v = (*v << 8) | static_cast<uint8_t>(in[i]);
    in.remove_prefix(8);
    return true;
  }
  bool VarString(std::string* s) {
    uint32_t n = 0;
    for (int shift = 0;; shift += 7) {
      if (in.empty() || shift > 28) return false;
      const uint8_t c = static_cast<uint8_t>(in[0]);
      in.remove_prefix(1);
      n |= static_cast<uint32_t>(c & 0x7f) << shift;
      if (!(c & 0x80)) break;
    }
    if (in.size() < n) return false;
    s->assign(in.substr(0, n));
    in.remove_prefix(n);
    return true;
  }
};

}  // namespace

std::string SeqKey(uint64_t seq) {
  std::string k(8, '\0');
  for (int i = 0; i < 8; ++i) k[i] = static_cast<char>(seq >> (8 * (7 - i)));
  return k;
}
uint64_t DecodeSeqKey(std::string_view k) {
  uint64_t v = 0;
  for (char c : k) v = (v << 8) | static_cast<uint8_t>(c);
  return v;
}

std::string EncodeNode(const NodeRow& r) {
  std::string v;
  PutFixed64(&v, r.fingerprint);
  PutFixed64(&v, static_cast<uint64_t>(r.time));
  PutVarString(&v, r.id);
  PutVarString(&v, r.root);
  PutVarString(&v, r.sketches);
  return v;
}
bool DecodeNode(std::string_view key, std::string_view value, NodeRow* r) {
  if (key.size() != 8) return false;
  r->seq = DecodeSeqKey(key);
  Reader rd{value};
  uint64_t t;
  return rd.Fixed64(&r->fingerprint) && rd.Fixed64(&t) &&
         (r->time = static_cast<int64_t>(t), true) && rd.VarString(&r->id) &&
         rd.VarString(&r->root) && rd.VarString(&r->sketches);
}

std::string EncodeTime(const TimeRow& r) {
  std::string v;
  PutFixed64(&v, static_cast<uint64_t>(r.time));
  v.push_back(r.ghost ? 1 : 0);
  return v;
}

bool DecodeTime(std::string_view key, std::string_view value, TimeRow* r) {
  Reader rd{value};
  uint64_t t;
  if (!rd.Fixed64(&t) || rd.in.size() != 1) return false;
  r->id.assign(key);
  r->time = static_cast<int64_t>(t);
  r->ghost = rd.in[0] != 0;
  return true;
}

std::string EncodeDoc(const DocRow& r) {
  std::string v;
  PutFixed64(&v, r.seq);
  PutFixed64(&v, static_cast<uint64_t>(r.arrival));
  PutVarString(&v, r.meta);
  PutVarString(&v, r.text);
  return v;
}
bool DecodeDoc(std::string_view value, DocRow* r) {
  Reader rd{value};
  uint64_t t = 0;
  const bool ok =
      rd.Fixed64(&r->seq) && rd.Fixed64(&t) && rd.VarString(&r->meta) && rd.VarString(&r->text);
  r->arrival = static_cast<int64_t>(t);
  return ok;
}

}  // namespace neardup::store
