// SPDX-License-Identifier: Apache-2.0
//
// neardup::GroupClusterer: batch clustering of externally supplied candidate
// groups, for banks too large for all-pairs work (e.g. 100M exam questions
// whose groups are the top results of a search log).
//
// Each group is a list of ids that may be duplicates of each other. Every pair
// inside a group is verified on the two normalized texts by a verifier
// (VerifyKind: levenshtein, lcs, jaccard, similarity, qbank, ...). Pairs
// that pass are joined by union-find, most similar first, under a cap on
// cluster size: two clusters whose total would exceed the cap stay apart, so
// chains A~B~C~... cannot build a giant cluster. Each cluster keeps one member
// by a keep policy (first | smallest-id | longest).
//
// Use in three passes so memory follows the ids that occur in groups:
//   1. Want(ids) for every group (optional; without it every text is kept),
//   2. AddText(id, text) for the texts,
//   3. AddGroups(groups) (verifies in parallel), then Finish().
//
// Memory: the normalized texts and ids of wanted members, a 64-bit hash per
// wanted id until the groups pass, and the passing pairs: about 230 bytes of
// resident memory per member with a 40-byte text (bench/group_cluster_bench.cc). Pairs that
// fail are not stored; a failing pair seen in several groups is verified again.
//
// Thread safety: not synchronized; call from one thread (AddGroups uses
// worker threads internally).
#ifndef NEARDUP_GROUP_CLUSTER_H_
#define NEARDUP_GROUP_CLUSTER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {

struct GroupClusterOptions {
  VerifyKind verify = VerifyKind::kLevenshtein;  // kNone accepts every pair
  double threshold = 0.8;                        // the verified similarity a pair needs
  ShingleOptions shingles{};                     // for the set verifiers
  double qbank_other_min = 1.0;                  // kQbank: the non-Han parts
  size_t max_cluster_size = 1000;                // the cap; 0 means no cap
  KeepPolicy keep = KeepPolicy::kFirst;
  size_t max_group_size = 64;  // later members of a larger group are ignored
  // Normalization before verification, as dedup's default profile: Traditional
  // folded to Simplified (T2S::kOff compares the characters as given), and
  // punctuation dropped, except for qbank, whose rule needs operators.
  T2S t2s = T2S::kTaiwan;
  std::optional<bool> drop_punctuation = std::nullopt;
  bool replace_invalid_utf8 = false;
  int threads = 0;  // verification threads; 0 = all cores (at most 4 per core, min 64, max 1024)
};

enum class PairOutcome { kJoined, kSameCluster, kCapExceeded };

struct PairEvidence {
  uint32_t a = 0, b = 0;    // member indices (GroupClustering::ids)
  double similarity = 0.0;  // the verifier's similarity
  PairOutcome outcome = PairOutcome::kJoined;
};

struct GroupClusterStats {
  uint64_t groups = 0;
  uint64_t pairs_verified = 0;      // verifier calls
  uint64_t pairs_passed = 0;        // distinct pairs that passed
  uint64_t pairs_missing_text = 0;  // pairs skipped: an id had no text
  uint64_t joins = 0;
  uint64_t refused_by_cap = 0;
};

struct GroupClustering {
  std::vector<std::string> ids;        // members with a text, in AddText order
  std::vector<uint32_t> cluster;       // member -> its cluster's first member
  std::vector<uint32_t> kept;          // member -> its cluster's kept member
  std::vector<uint32_t> cluster_size;  // member -> size of its cluster
  std::vector<PairEvidence> pairs;     // passing pairs, in join order (best first)
  GroupClusterStats stats;
};

class GroupClusterer {
 public:
  // Errors: InvalidArgument for a bad verifier spec, keep policy, size or
  // thread count; NotFound / IOError when the T2S tables cannot be loaded.
  static Result<std::unique_ptr<GroupClusterer>> Create(const GroupClusterOptions& options);
  ~GroupClusterer();
  GroupClusterer(const GroupClusterer&) = delete;
  GroupClusterer& operator=(const GroupClusterer&) = delete;

  // Marks ids whose texts are needed (pass 1).
  void Want(std::span<const std::string> ids);
  // Stores the normalized text of `id` if wanted (pass 2). Errors:
  // InvalidArgument (empty id, ill-formed UTF-8), AlreadyExists (id repeated).
  Status AddText(const std::string& id, std::string_view text);
  // Verifies every pair of each group (pass 3). Ids without a text are skipped.
  // Errors: those of the verifier; ResourceExhausted when memory runs out.
  Status AddGroups(std::span<const std::vector<std::string>> groups);
  // Joins the passing pairs under the cap and applies the keep policy.
  GroupClustering Finish();

 private:
  struct Impl;
  explicit GroupClusterer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup

#endif  // NEARDUP_GROUP_CLUSTER_H_
