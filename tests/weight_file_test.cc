// Weight files (edgeattn/weight_file.h) on every target: the sample
// state_dict that tools/test_convert_weights.py writes as safetensors and
// converts to a blob reads back with the values it was made of (recomputed
// here from the same formula), packed matrices equal ea_pack_linear_weights,
// MHA plans from either file give the bits of the header's arrays; and every
// kind of broken file is refused without a read outside it.
#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <string>
#include <vector>

#include "data/weights/sample_files.h"
#include "data/weights/sample_weights.h"
#include "edgeattn/weight_file.h"
#include "reference/random_tensor.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

constexpr int kDModel = 40, kHeads = 4;

// tools/test_convert_weights.py's sample_value: exact in every dtype.
double SampleValue(int tensor_index, int64_t i, bool floating) {
  const int64_t mixed = i * 37 + tensor_index * 11;
  return floating ? static_cast<double>(mixed % 257 - 128) / 64.0
                  : static_cast<double>(mixed % 251 - 125);
}

struct SampleTensor {
  const char* name;
  ea_tensor_dtype dtype;
  std::vector<int64_t> dims;
};
const std::vector<SampleTensor>& SampleTensors() {
  static const std::vector<SampleTensor> tensors = {
      {"attn.in_proj_weight", EA_TENSOR_F32, {3 * kDModel, kDModel}},
      {"attn.in_proj_bias", EA_TENSOR_F32, {3 * kDModel}},
      {"attn.out_proj.weight", EA_TENSOR_F32, {kDModel, kDModel}},
      {"attn.out_proj.bias", EA_TENSOR_F32, {kDModel}},
      {"embedding.weight", EA_TENSOR_F32, {11, kDModel}},
      {"quant.scale_i8", EA_TENSOR_I8, {3, 5}},
      {"quant.bias_i32", EA_TENSOR_I32, {7}},
      {"half", EA_TENSOR_F16, {4, 2}},
      {"step", EA_TENSOR_I64, {}},
  };
  return tensors;
}

// The file's bytes in an 8-aligned buffer of our own, so cases can break it.
AlignedBytes Copy(const unsigned char* bytes, size_t size) {
  AlignedBytes copy(size);
  memcpy(copy.data(), bytes, size);
  return copy;
}

ea_weight_file Open(const AlignedBytes& bytes) {
  ea_weight_file file{};
  EXPECT_EQ(ea_weight_file_open(&file, bytes.data(), bytes.size()), EA_OK);
  return file;
}

// Element i of a view in row-major order, as double (packed views unpacked).
double Element(const ea_tensor_view& v, int64_t i) {
  switch (v.dtype) {
    case EA_TENSOR_F32: {
      const float* f = static_cast<const float*>(v.data);
      if (v.layout != EA_TENSOR_PACKED_LINEAR) return f[i];
      const int64_t row = i / v.dims[1], col = i % v.dims[1];
      return f[(row / 64) * v.dims[1] * 64 + col * 64 + row % 64];
    }
    case EA_TENSOR_I8:
      return static_cast<const int8_t*>(v.data)[i];
    case EA_TENSOR_I32:
      return static_cast<const int32_t*>(v.data)[i];
    case EA_TENSOR_I64:
      return static_cast<double>(static_cast<const int64_t*>(v.data)[i]);
    case EA_TENSOR_F16: {
      const uint16_t h = static_cast<const uint16_t*>(v.data)[i];
      // Normal halves only (the sample's values): sign, exponent, mantissa.
      const double magnitude =
          std::ldexp(1.0 + (h & 0x3ff) / 1024.0, ((h >> 10) & 0x1f) - 15) * ((h & 0x7c00) != 0);
      return (h & 0x8000) ? -magnitude : magnitude;
    }
    default:
      ADD_FAILURE() << "dtype " << v.dtype;
      return 0.0;
  }
}

void ExpectSampleTensors(const ea_weight_file& file, bool packed_matrices) {
  const std::vector<SampleTensor>& tensors = SampleTensors();
  for (size_t t = 0; t < tensors.size(); ++t) {
    const SampleTensor& want = tensors[t];
    SCOPED_TRACE(want.name);
    ea_tensor_view view{};
    ASSERT_EQ(ea_weight_file_find(&file, want.name, &view), EA_OK);
    EXPECT_EQ(view.dtype, want.dtype);
    ASSERT_EQ(view.rank, static_cast<int32_t>(want.dims.size()));
    int64_t count = 1;
    for (size_t r = 0; r < want.dims.size(); ++r) {
      EXPECT_EQ(view.dims[r], want.dims[r]);
      count *= want.dims[r];
    }
    const bool matrix = packed_matrices && want.dims.size() == 2 && want.dtype == EA_TENSOR_F32 &&
                        std::string(want.name).find("weight") != std::string::npos;
    EXPECT_EQ(view.layout, matrix ? EA_TENSOR_PACKED_LINEAR : EA_TENSOR_ROW_MAJOR);
    const bool floating = want.dtype == EA_TENSOR_F32 || want.dtype == EA_TENSOR_F16;
    for (int64_t i = 0; i < count; ++i) {
      ASSERT_EQ(Element(view, i), SampleValue(static_cast<int>(t), i, floating)) << "element " << i;
    }
  }
}

TEST(WeightFile, SafetensorsAndBlobHoldTheSampleValues) {
  const AlignedBytes st = Copy(kSampleSafetensors, kSampleSafetensors_size);
  const AlignedBytes blob = Copy(kSampleBlob, kSampleBlob_size);
  const ea_weight_file st_file = Open(st), blob_file = Open(blob);
  EXPECT_EQ(st_file.tensor_count, SampleTensors().size());
  EXPECT_EQ(blob_file.tensor_count, SampleTensors().size());
  ExpectSampleTensors(st_file, false);
  ExpectSampleTensors(blob_file, true);
  ea_tensor_view view{};
  EXPECT_EQ(ea_weight_file_find(&st_file, "attn.in_proj_weigh", &view), EA_ERR_NOT_FOUND);
  EXPECT_EQ(ea_weight_file_find(&blob_file, "__metadata__", &view), EA_ERR_NOT_FOUND);
}

// The converter's packing is the library's, and the header holds it too.
TEST(WeightFile, PackedMatricesAreTheLibrarysPacking) {
  const AlignedBytes st = Copy(kSampleSafetensors, kSampleSafetensors_size);
  const AlignedBytes blob = Copy(kSampleBlob, kSampleBlob_size);
  const ea_weight_file st_file = Open(st), blob_file = Open(blob);
  for (const char* name : {"attn.in_proj_weight", "attn.out_proj.weight", "embedding.weight"}) {
    SCOPED_TRACE(name);
    ea_tensor_view row_major{}, packed{};
    ASSERT_EQ(ea_weight_file_find(&st_file, name, &row_major), EA_OK);
    ASSERT_EQ(ea_weight_file_find(&blob_file, name, &packed), EA_OK);
    const int32_t n_out = static_cast<int32_t>(row_major.dims[0]);
    const int32_t n_in = static_cast<int32_t>(row_major.dims[1]);
    size_t floats = 0;
    ASSERT_EQ(ea_packed_linear_size(n_out, n_in, &floats), EA_OK);
    std::vector<float> ours(floats, -1.0f);
    ASSERT_EQ(ea_pack_linear_weights(static_cast<const float*>(row_major.data), n_out, n_in,
                                     ours.data(), floats),
              EA_OK);
    ASSERT_EQ(packed.bytes, floats * sizeof(float));
    EXPECT_EQ(memcmp(packed.data, ours.data(), packed.bytes), 0);
  }
  ea_tensor_view in_proj{};
  ASSERT_EQ(ea_weight_file_find(&blob_file, "attn.in_proj_weight", &in_proj), EA_OK);
  ASSERT_EQ(in_proj.bytes, sizeof(sample_attn_in_proj_weight));
  EXPECT_EQ(memcmp(in_proj.data, sample_attn_in_proj_weight, in_proj.bytes), 0);
}

// ea_mha_run on the weights of each file (row-major from safetensors, packed
// from the blob) and of the header's arrays: the same bits.
TEST(WeightFile, MhaPlansFromEveryFormatGiveTheSameBits) {
  const AlignedBytes st = Copy(kSampleSafetensors, kSampleSafetensors_size);
  const AlignedBytes blob = Copy(kSampleBlob, kSampleBlob_size);
  const ea_weight_file st_file = Open(st), blob_file = Open(blob);
  const int n = 9;
  const std::vector<float> x = RandomTensor(static_cast<size_t>(n) * kDModel, 171);
  auto run = [&](const ea_mha_weights& weights, ea_weights_layout layout) {
    ea_mha_config c{};
    c.dtype = EA_DTYPE_F32;
    c.max_tokens = n;
    c.d_model = kDModel;
    c.heads = kHeads;
    c.mask = EA_MASK_CAUSAL;
    c.position = EA_POSITION_NONE;
    c.weights_layout = layout;
    size_t bytes = 0;
    EXPECT_EQ(ea_mha_arena_size(&c, &bytes), EA_OK);
    AlignedBytes storage(bytes);
    ea_arena arena{};
    ea_arena_init(&arena, storage.data(), bytes);
    ea_mha_plan plan{};
    EXPECT_EQ(ea_mha_plan_init(&plan, &c, &weights, &arena), EA_OK);
    std::vector<float> y(x.size(), NAN);
    EXPECT_EQ(ea_mha_run(&plan, x.data(), n, n, y.data(), nullptr), EA_OK);
    return y;
  };
  ea_mha_weights from_st{}, from_blob{};
  ea_weights_layout st_layout = EA_WEIGHTS_PACKED, blob_layout = EA_WEIGHTS_ROW_MAJOR;
  ASSERT_EQ(ea_weight_file_mha(&st_file, "attn.", kDModel, kHeads, kHeads, &from_st, &st_layout),
            EA_OK);
  ASSERT_EQ(
      ea_weight_file_mha(&blob_file, "attn.", kDModel, kHeads, kHeads, &from_blob, &blob_layout),
      EA_OK);
  EXPECT_EQ(st_layout, EA_WEIGHTS_ROW_MAJOR);
  EXPECT_EQ(blob_layout, EA_WEIGHTS_PACKED);
  const ea_mha_weights from_header{sample_attn_in_proj_weight, sample_attn_in_proj_bias,
                                   sample_attn_out_proj_weight, sample_attn_out_proj_bias};
  const std::vector<float> y = run(from_st, st_layout);
  EXPECT_EQ(run(from_blob, blob_layout), y);
  EXPECT_EQ(run(from_header, EA_WEIGHTS_PACKED), y);

  // Shapes that are not the plan's, and a prefix without the module.
  ea_mha_weights untouched{};
  ea_weights_layout layout = EA_WEIGHTS_ROW_MAJOR;
  EXPECT_EQ(ea_weight_file_mha(&blob_file, "attn.", kDModel, kHeads, 2, &untouched, &layout),
            EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_weight_file_mha(&blob_file, "attn.", 80, kHeads, kHeads, &untouched, &layout),
            EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(
      ea_weight_file_mha(&blob_file, "decoder.", kDModel, kHeads, kHeads, &untouched, &layout),
      EA_ERR_NOT_FOUND);
  EXPECT_EQ(ea_weight_file_mha(&blob_file, "attn.", kDModel, 3, 3, &untouched, &layout),
            EA_ERR_HEADS_MISMATCH);
  EXPECT_EQ(untouched.in_proj_weight, nullptr);
  EXPECT_EQ(layout, EA_WEIGHTS_ROW_MAJOR);
}

void Put32(AlignedBytes& b, size_t at, uint32_t value) { memcpy(b.data() + at, &value, 4); }
void Put64(AlignedBytes& b, size_t at, uint64_t value) { memcpy(b.data() + at, &value, 8); }

// Every prefix of either file is refused (a truncated download), and so is
// each broken field of the blob's header and table.
TEST(WeightFile, BrokenFilesAreRefused) {
  const AlignedBytes blob = Copy(kSampleBlob, kSampleBlob_size);
  const AlignedBytes st = Copy(kSampleSafetensors, kSampleSafetensors_size);
  ea_weight_file file{};
  for (size_t size = 0; size < blob.size(); size += size < 512 ? 1 : 61) {
    ASSERT_EQ(ea_weight_file_open(&file, blob.data(), size), EA_ERR_BAD_FILE) << size;
  }
  for (size_t size = 0; size < st.size(); size += size < 1024 ? 1 : 61) {
    ASSERT_EQ(ea_weight_file_open(&file, st.data(), size), EA_ERR_BAD_FILE) << size;
  }
  struct Break {
    const char* what;
    size_t at;
    uint64_t value;
    bool wide;
  };
  const size_t entry0 = 64, entry1 = 64 + 192;
  const Break breaks[] = {
      {"version 2", 8, 2, false},
      {"more tensors than the table holds", 12, 1000, false},
      {"file bytes past the buffer", 16, kSampleBlob_size + 1, true},
      {"data offset not after the table", 24, 64, true},
      {"name without a NUL", entry0 + 95, 'x', false},
      {"empty name", entry0, 0, false},
      {"unknown dtype", entry0 + 96, 77, false},
      {"unknown layout", entry0 + 100, 5, false},
      {"rank 9", entry0 + 104, 9, false},
      {"offset misaligned", entry0 + 112, 64 + 2 * 192 * 9 + 8, true},
      {"bytes not the shape's", entry1 + 120, 4 * 120 + 4, true},
      {"second tensor overlaps the first", entry1 + 112, 64 + 192 * 9, true},
      {"offset far past the end", entry1 + 112, uint64_t{1} << 62, true},
      {"dimension negative", entry1 + 128, static_cast<uint64_t>(-120), true},
      {"dimensions whose product wraps", entry1 + 128, uint64_t{1} << 62, true},
      {"same name twice", entry1, 0, false},  // patched below
  };
  for (const Break& b : breaks) {
    AlignedBytes broken = Copy(kSampleBlob, kSampleBlob_size);
    if (strcmp(b.what, "same name twice") == 0) {
      memcpy(broken.data() + entry1, broken.data() + entry0, 96);
    } else if (b.wide) {
      Put64(broken, b.at, b.value);
    } else if (b.at == entry0 + 95 || b.at == entry0) {
      memset(broken.data() + entry0, b.value == 0 ? 0 : 'x', b.value == 0 ? 1 : 96);
    } else {
      Put32(broken, b.at, static_cast<uint32_t>(b.value));
    }
    EXPECT_EQ(ea_weight_file_open(&file, broken.data(), broken.size()), EA_ERR_BAD_FILE) << b.what;
  }
  // The bytes must be 8-aligned for zero-copy views.
  AlignedBytes shifted(blob.size() + 8);
  memcpy(shifted.data() + 4, blob.data(), blob.size());
  EXPECT_EQ(ea_weight_file_open(&file, shifted.data() + 4, blob.size()), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_weight_file_open(nullptr, blob.data(), blob.size()), EA_ERR_NULL_POINTER);
  ea_weight_file never_opened{};
  ea_tensor_view view{};
  EXPECT_EQ(ea_weight_file_find(&never_opened, "half", &view), EA_ERR_BAD_ARGUMENT);
}

// A safetensors file from text: the JSON header padded with spaces, then data.
AlignedBytes Safetensors(const std::string& json, size_t data_bytes) {
  AlignedBytes bytes(8 + json.size() + data_bytes);
  const uint64_t n = json.size();
  memcpy(bytes.data(), &n, 8);
  memcpy(bytes.data() + 8, json.data(), json.size());
  return bytes;
}

TEST(WeightFile, SafetensorsHeadersAreValidatedWhole) {
  const std::string good = R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}})";
  struct Case {
    std::string json;
    size_t data;
    ea_status want;
  };
  const Case cases[] = {
      {good + "    ", 24, EA_OK},
      {R"({"__metadata__":{"format":"pt","x":[1,{"y":null}]},"b\u0041":{"shape":[],"dtype":"I64","data_offsets":[0,8]}})",
       8, EA_OK},
      {R"({})", 0, EA_OK},
      {good, 23, EA_ERR_BAD_FILE},  // data too short
      {R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", 24, EA_ERR_BAD_FILE},
      {R"({"a":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", 8, EA_ERR_BAD_FILE},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8, EA_ERR_BAD_FILE},
      {R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8, EA_ERR_BAD_FILE},
      {R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", 8, EA_ERR_BAD_FILE},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})", 8, EA_ERR_BAD_FILE},  // no }
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}x)", 8, EA_ERR_BAD_FILE},
      {R"({"a":{"shape":[2],"data_offsets":[0,8]}})", 8, EA_ERR_BAD_FILE},  // no dtype
      {R"({"a":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8,
       EA_ERR_BAD_FILE},
      {R"({"a":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]}})", 4,
       EA_ERR_BAD_FILE},  // rank 9
      {R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,16]}})", 16,
       EA_ERR_BAD_FILE},  // the product wraps
      {R"({"a":{"dtype":"F32","shape":[99999999999999999999],"data_offsets":[0,4]}})", 4,
       EA_ERR_BAD_FILE},
      {R"({"a\q":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4, EA_ERR_BAD_FILE},
      {std::string("{\"a\x01\":{}}"), 0, EA_ERR_BAD_FILE},
      {R"({"__metadata__":[[[[)", 0, EA_ERR_BAD_FILE},
      {"{\"__metadata__\":" + std::string(70, '[') + std::string(70, ']') + "}", 0,
       EA_ERR_BAD_FILE},  // nested deeper than the scanner goes
      {R"([])", 0, EA_ERR_BAD_FILE},
  };
  for (const Case& c : cases) {
    const AlignedBytes bytes = Safetensors(c.json, c.data);
    ea_weight_file file{};
    EXPECT_EQ(ea_weight_file_open(&file, bytes.data(), bytes.size()), c.want) << c.json;
  }
  // A header length past the file.
  AlignedBytes bytes = Safetensors(good, 24);
  Put64(bytes, 0, bytes.size());
  ea_weight_file file{};
  EXPECT_EQ(ea_weight_file_open(&file, bytes.data(), bytes.size()), EA_ERR_BAD_FILE);

  // An escaped name is found by its text; a misaligned tensor cannot be
  // viewed in place.
  const std::string unaligned =
      R"({"i8":{"dtype":"I8","shape":[3],"data_offsets":[0,3]},"f\u0033\"2":{"dtype":"F32","shape":[1],"data_offsets":[3,7]}})";
  const AlignedBytes odd = Safetensors(unaligned + std::string(8 - unaligned.size() % 8, ' '), 7);
  ASSERT_EQ(ea_weight_file_open(&file, odd.data(), odd.size()), EA_OK);
  ea_tensor_view view{};
  EXPECT_EQ(ea_weight_file_find(&file, "i8", &view), EA_OK);
  EXPECT_EQ(ea_weight_file_find(&file, "f3\"2", &view), EA_ERR_UNSUPPORTED);
}

}  // namespace
}  // namespace edgeattn_test
