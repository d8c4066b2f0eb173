#include "plan_ops_support.h"

#include <string.h>

#include "driver_support.h"
#include "failure.h"
#include "tensor_fill.h"

namespace edgeattn_fuzz {
namespace {

constexpr size_t kStandInFloats = 16;
constexpr int64_t kPanelRows = 64;  // ea_linear_pack_weights' panels

// Row-major w [rows, cols] from a packed buffer (edgeattn.h: panels of 64
// output rows, cols x 64 floats each).
std::vector<float> Unpack(const float* packed, int64_t rows, int64_t cols) {
  std::vector<float> w(static_cast<size_t>(rows * cols));
  for (int64_t o = 0; o < rows; ++o) {
    const float* panel = packed + (o / kPanelRows) * cols * kPanelRows;
    for (int64_t i = 0; i < cols; ++i) {
      w[static_cast<size_t>(o * cols + i)] = panel[i * kPanelRows + o % kPanelRows];
    }
  }
  return w;
}

std::vector<float> ReadMatrix(const MemoryPool& pool, int region, int64_t rows, int64_t cols,
                              int32_t layout) {
  const float* data = pool.Floats(region);
  if (layout == EA_WEIGHTS_PACKED) return Unpack(data, rows, cols);
  return std::vector<float>(data, data + rows * cols);
}

void FillMatrix(const MemoryPool& pool, int region, const TensorSpec& spec, int64_t rows,
                int64_t cols, int32_t layout, FillCache* cache) {
  const size_t count = static_cast<size_t>(rows * cols);
  if (layout != EA_WEIGHTS_PACKED) {
    cache->Fill(spec, pool.Floats(region), count);
    return;
  }
  std::vector<float> w(count);
  cache->Fill(spec, w.data(), count);
  if (ea_linear_pack_weights(w.data(), static_cast<int32_t>(rows), static_cast<int32_t>(cols),
                             pool.Floats(region), pool.Size(region) / 4) != EA_OK) {
    Fail("harness: ea_linear_pack_weights refused a %lld x %lld matrix",
         static_cast<long long>(rows), static_cast<long long>(cols));
  }
}

}  // namespace

size_t WeightFloats(int64_t rows, int64_t cols, int32_t layout) {
  const size_t count = BoundedCount(rows, cols);
  if (count == 0 || layout != EA_WEIGHTS_PACKED) return count;
  size_t floats = 0;
  if (ea_linear_packed_size(static_cast<int32_t>(rows), static_cast<int32_t>(cols), &floats) !=
      EA_OK) {
    return 0;
  }
  return floats <= static_cast<size_t>(4 * kMaxTensorFloats) ? floats : 0;
}

void LayerWeights::Place(MemoryPool* pool, int64_t rows_, int64_t e_, int32_t layout_,
                         uint8_t biases) {
  rows = rows_;
  e = e_;
  layout = layout_ == EA_WEIGHTS_PACKED ? EA_WEIGHTS_PACKED : EA_WEIGHTS_ROW_MAJOR;
  const size_t in_floats = WeightFloats(rows, e, layout);
  const size_t out_floats = WeightFloats(e, e, layout);
  const size_t in_bias_floats = BoundedCount(rows, 1), out_bias_floats = BoundedCount(e, 1);
  materialised = in_floats > 0 && out_floats > 0 && in_bias_floats > 0 && out_bias_floats > 0;
  auto size = [&](size_t floats) { return (materialised ? floats : 1) * 4; };
  in_proj = pool->AddSeparate("in_proj_weight", size(in_floats), 4);
  if (biases & 1) in_bias = pool->AddSeparate("in_proj_bias", size(in_bias_floats), 4);
  out_proj = pool->AddSeparate("out_proj_weight", size(out_floats), 4);
  if (biases & 2) out_bias = pool->AddSeparate("out_proj_bias", size(out_bias_floats), 4);
  three_tensors = (biases & 4) && materialised && layout == EA_WEIGHTS_ROW_MAJOR;
}

void FillCache::Fill(const TensorSpec& spec, float* data, size_t count) {
  for (const Entry& entry : entries_) {
    if (entry.spec == &spec && entry.values.size() == count) {
      if (count > 0) memcpy(data, entry.values.data(), count * sizeof(float));
      return;
    }
  }
  entries_.push_back(Entry{&spec, std::vector<float>(count)});
  FillTensor(spec, entries_.back().values.data(), count);
  if (count > 0) memcpy(data, entries_.back().values.data(), count * sizeof(float));
}

void LayerWeights::Fill(const MemoryPool& pool, const TensorSpec* weights, const TensorSpec* biases,
                        FillCache* cache) const {
  if (!materialised) return;
  FillMatrix(pool, in_proj, weights[0], rows, e, layout, cache);
  FillMatrix(pool, out_proj, weights[1], e, e, layout, cache);
  if (in_bias >= 0) cache->Fill(biases[0], pool.Floats(in_bias), static_cast<size_t>(rows));
  if (out_bias >= 0) cache->Fill(biases[1], pool.Floats(out_bias), static_cast<size_t>(e));
}

std::vector<float> LayerWeights::InProj(const MemoryPool& pool) const {
  return ReadMatrix(pool, in_proj, rows, e, layout);
}
std::vector<float> LayerWeights::OutProj(const MemoryPool& pool) const {
  return ReadMatrix(pool, out_proj, e, e, layout);
}

std::vector<int> LayerWeights::Regions() const {
  std::vector<int> regions;
  for (int region : {in_proj, in_bias, out_proj, out_bias}) {
    if (region >= 0) regions.push_back(region);
  }
  return regions;
}

ea_mha_weights LayerWeights::Arguments(const MemoryPool& pool, uint16_t nulls) const {
  ea_mha_weights weights{};
  weights.in_proj_weight = nulls & kNullInput1 ? nullptr : pool.Floats(in_proj);
  weights.in_proj_bias = in_bias >= 0 ? pool.Floats(in_bias) : nullptr;
  weights.out_proj_weight = nulls & kNullInput2 ? nullptr : pool.Floats(out_proj);
  weights.out_proj_bias = out_bias >= 0 ? pool.Floats(out_bias) : nullptr;
  if (three_tensors) {
    const float* in_w = pool.Floats(in_proj);
    const float* in_b = in_bias >= 0 ? pool.Floats(in_bias) : nullptr;
    const size_t q_rows = static_cast<size_t>(e), kv_rows = static_cast<size_t>((rows - e) / 2);
    const size_t width = static_cast<size_t>(e);
    weights.in_proj_weight = nullptr;
    weights.in_proj_bias = nullptr;
    weights.q_proj_weight = in_w;
    weights.k_proj_weight = nulls & kNullInput1 ? nullptr : in_w + q_rows * width;
    weights.v_proj_weight = in_w + (q_rows + kv_rows) * width;
    weights.q_proj_bias = in_b;
    weights.k_proj_bias = in_b != nullptr ? in_b + q_rows : nullptr;
    weights.v_proj_bias = in_b != nullptr ? in_b + q_rows + kv_rows : nullptr;
  }
  return weights;
}

void LayerCopy::Read(const MemoryPool& pool, const LayerWeights& weights, LayerSpec* spec) {
  in_proj = weights.InProj(pool);
  out_proj = weights.OutProj(pool);
  if (weights.in_bias >= 0) {
    in_bias.assign(pool.Floats(weights.in_bias), pool.Floats(weights.in_bias) + weights.rows);
  }
  if (weights.out_bias >= 0) {
    out_bias.assign(pool.Floats(weights.out_bias), pool.Floats(weights.out_bias) + weights.e);
  }
  spec->d_model = static_cast<int>(weights.e);
  spec->in_proj_weight = in_proj.data();
  spec->in_proj_bias = in_bias.empty() ? nullptr : in_bias.data();
  spec->out_proj_weight = out_proj.data();
  spec->out_proj_bias = out_bias.empty() ? nullptr : out_bias.data();
}

bool InitPredicted(bool config_valid, bool materialised, uint16_t nulls, const ArenaSpec& spec,
                   const ArenaLayout& layout, uint64_t need) {
  return config_valid && materialised &&
         !(nulls & (kNullPlan | kNullPlanConfig | kNullArena | kNullArenaBase | kNullInput1 |
                    kNullInput2 | kNullWeights)) &&
         !spec.Overfull() && (layout.misalign + layout.pre_used) % EA_ARENA_ALIGNMENT == 0 &&
         layout.pre_used <= layout.capacity && need <= layout.capacity - layout.pre_used;
}

int32_t ResolveOpCount(const PlanOp& op, int64_t room, int64_t maximum) {
  const uint32_t raw = static_cast<uint32_t>(op.length_value);
  const int64_t fits = room < maximum ? room : maximum;
  int64_t n;
  if (op.length_kind < 128) {
    n = fits >= 1 ? 1 + raw % fits : 1;
  } else if (op.length_kind < 176) {
    n = maximum >= 1 ? 1 + raw % maximum : 1;
  } else if (op.length_kind < 192) {
    n = room + 1;
  } else if (op.length_kind < 208) {
    n = maximum + 1;
  } else if (op.length_kind < 224) {
    n = 0;
  } else {
    return op.length_value;
  }
  return static_cast<int32_t>(n < INT32_MIN ? INT32_MIN : n > INT32_MAX ? INT32_MAX : n);
}

OpBuffers PlaceOpBuffers(MemoryPool* pool, const PlanOp& op, const char* x_name, const char* y_name,
                         int32_t n, int64_t cols, int64_t* budget, std::vector<int>* candidates) {
  OpBuffers b;
  if (n >= 1 && cols >= 1 && cols <= kMaxTensorFloats && n <= kMaxTensorFloats / cols &&
      2 * n * cols <= *budget) {
    *budget -= 2 * n * cols;
    b.floats = static_cast<size_t>(n * cols);
  } else {
    b.stand_in = true;
    b.floats = kStandInFloats;
  }
  b.x = PlaceRegion(pool, x_name, b.floats * 4, op.x, *candidates);
  switch (op.OutputMode()) {
    case kOutputOwn:
      b.y = pool->AddSeparate(y_name, b.floats * 4, 4);
      break;
    case kOutputIsInput:
      b.y = b.x;
      break;
    default: {
      std::vector<int> with_x = *candidates;
      with_x.push_back(b.x);
      // Placement::Target picks among the candidates; the input is the last.
      b.y = PlaceRegion(pool, y_name, b.floats * 4, op.y, with_x);
      break;
    }
  }
  candidates->push_back(b.x);
  if (b.y != b.x) candidates->push_back(b.y);
  return b;
}

void DebugOps(const char* const* kind_names, const std::vector<uint8_t>& kinds,
              const std::vector<bool>& with_buffers, const std::vector<int32_t>& counts,
              const std::vector<OpBuffers>& buffers, const PlanOp* ops) {
  for (size_t i = 0; i < kinds.size(); ++i) {
    Debug(" %s", kind_names[kinds[i]]);
    if (with_buffers[i]) Debug(" %d%s", counts[i], buffers[i].stand_in ? " (stand-in)" : "");
    if (ops[i].Nulls()) Debug(" nulls %#x", ops[i].Nulls());
    Debug(";");
  }
  Debug("\n");
}

int64_t RowBytes(int32_t n, int64_t cols) {
  if (n < 1 || cols < 1) return 0;
  return cols > INT64_MAX / 4 / n ? INT64_MAX : int64_t{n} * cols * 4;
}

ByteRange Extent(const MemoryPool& pool, const void* pointer, int64_t bytes) {
  if (pointer == nullptr || bytes <= 0) return ByteRange{};
  return pool.RangeOf(pointer, static_cast<size_t>(bytes));
}

ByteRange Span(const MemoryPool& pool, int region, int64_t bytes) {
  const size_t begin = pool.Range(region).begin;
  return bytes > 0 ? ByteRange{begin, begin + static_cast<size_t>(bytes)} : ByteRange{};
}

void CallMemoryRules(const CallMemory& memory, const ByteRange& x, const ByteRange& y,
                     StatusSet* rules) {
  if (x.Overlaps(memory.carve) || y.Overlaps(memory.carve)) rules->Add(EA_ERR_BAD_ARGUMENT);
  for (const ByteRange& kept : memory.kept) {
    if (x.Overlaps(kept) || y.Overlaps(kept)) rules->Add(EA_ERR_BAD_ARGUMENT);
  }
  for (const ByteRange& unread : memory.unread) {
    if (x.Overlaps(unread) || y.Overlaps(unread)) rules->AllowRefusal();
  }
}

void ExpectSameRecords(const char* family, const std::vector<OpRecord>& first,
                       const std::vector<OpRecord>& replay) {
  for (size_t i = 0; i < first.size() && i < replay.size(); ++i) {
    if (first[i].status != replay[i].status) {
      Fail("%s replay: op %zu returned %d, %d the first time", family, i,
           static_cast<int>(replay[i].status), static_cast<int>(first[i].status));
    }
    if (first[i].y != replay[i].y) {
      ExpectSameBits(family, first[i].y, replay[i].y.data());
    }
  }
  if (first.size() != replay.size()) {
    Fail("%s replay: %zu ops ran, %zu the first time", family, replay.size(), first.size());
  }
}

}  // namespace edgeattn_fuzz
