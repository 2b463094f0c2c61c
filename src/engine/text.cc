// SPDX-License-Identifier: Apache-2.0
// The public text tools (include/neardup/text.h) over the engine's pipeline
// and the jieba-compatible segmenter.
#include "neardup/text.h"

#include "base/status_macros.h"
#include "pipeline/pipeline.h"
#include "pipeline/signals.h"
#include "resources/data_dir.h"
#include "sketch/minhash.h"
#include "tokenize/segmenter.h"

namespace neardup {

TextPipeline::TextPipeline(std::unique_ptr<pipeline::Pipeline> p,
                           std::unique_ptr<sketch::MinHasher> h)
    : p_(std::move(p)), minhasher_(std::move(h)) {}
TextPipeline::~TextPipeline() = default;

Result<std::unique_ptr<TextPipeline>> TextPipeline::Create(const EngineOptions& options) {
  const pipeline::PipelineNeeds needs = pipeline::NeedsOf(options);
  NEARDUP_ASSIGN_OR_RETURN(auto p, pipeline::Pipeline::Create(options, needs.features, true));
  NEARDUP_ASSIGN_OR_RETURN(sketch::MinHasher h,
                           sketch::MinHasher::Create(pipeline::ToMinHashOptions(options)));
  return std::unique_ptr<TextPipeline>(
      new TextPipeline(std::move(p), std::make_unique<sketch::MinHasher>(std::move(h))));
}

Status TextPipeline::Normalize(std::string_view text, std::string* out) const {
  return p_->Normalize(text, out);
}

Status TextPipeline::Shingles(std::string_view text, std::vector<uint64_t>* out) const {
  thread_local std::string normalized;
  NEARDUP_RETURN_IF_ERROR(p_->Normalize(text, &normalized));
  p_->Shingles(normalized, out);
  return Status::OK();
}

Status TextPipeline::Words(std::string_view text, std::vector<std::string>* out) const {
  return p_->Words(text, out);
}

Result<uint64_t> TextPipeline::Fingerprint(std::string_view text) const {
  return p_->Fingerprint(text);
}

Status TextPipeline::MinHash(std::string_view text, std::vector<uint32_t>* out) const {
  thread_local std::vector<uint64_t> shingles;
  NEARDUP_RETURN_IF_ERROR(Shingles(text, &shingles));
  out->resize(minhasher_->num_perm());
  minhasher_->Sketch(shingles, *out);
  return Status::OK();
}

struct Segmenter::Impl {
  std::shared_ptr<const tokenize::Segmenter> seg;
};

Segmenter::Segmenter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Segmenter::~Segmenter() = default;

Result<std::unique_ptr<Segmenter>> Segmenter::Create(const SegmenterOptions& o) {
  tokenize::SegmenterOptions so;
  so.dict_dir = o.dict_dir;
  so.dict_path = o.dict_path;
  so.hmm_path = o.hmm_path;
  so.user_dict_paths = o.user_dicts;
  so.hmm = o.hmm;
  so.use_cache = o.use_cache;
  so.cache_dir = o.cache_dir;
  auto impl = std::make_unique<Impl>();
  NEARDUP_ASSIGN_OR_RETURN(impl->seg, tokenize::Segmenter::Shared(so));
  return std::unique_ptr<Segmenter>(new Segmenter(std::move(impl)));
}

Status Segmenter::Cut(std::string_view text, std::vector<std::string>* tokens) const {
  thread_local std::vector<std::string_view> views;
  views.clear();
  NEARDUP_RETURN_IF_ERROR(impl_->seg->Cut(text, &views));
  tokens->assign(views.begin(), views.end());
  return Status::OK();
}

std::string Segmenter::DefaultCacheDir() { return tokenize::DefaultCacheDir(); }
std::string Segmenter::DefaultDictDir() { return resources::JiebaDir(); }

}  // namespace neardup
