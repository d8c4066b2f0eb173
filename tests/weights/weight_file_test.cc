// Weight files (edgeattn/weight_file.h) on every target: the sample
// state_dict that tools/test_convert_weights.py writes as safetensors and
// converts to a blob reads back with the values it was made of (recomputed
// here from the same formula), packed matrices equal ea_linear_pack_weights,
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
#include "planned_operation.h"
#include "reference/random_tensor.h"
#include "test_support.h"
#include "weights/heap_sort.h"
#include "weights/weight_formats.h"

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
    ASSERT_EQ(ea_linear_packed_size(n_out, n_in, &floats), EA_OK);
    std::vector<float> ours(floats, -1.0f);
    ASSERT_EQ(ea_linear_pack_weights(static_cast<const float*>(row_major.data), n_out, n_in,
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
    c.n_heads = kHeads;
    c.mask = EA_MASK_CAUSAL;
    c.position = EA_POSITION_NONE;
    c.weights_layout = layout;
    const PlannedMha planned = PlanMha(c, weights);
    EXPECT_EQ(planned.status, EA_OK);
    std::vector<float> y(x.size(), NAN);
    EXPECT_EQ(ea_mha_run(&planned.plan, x.data(), n, n, y.data(), nullptr), EA_OK);
    return y;
  };
  ea_mha_weights from_st{}, from_blob{};
  // find_mha writes the whole struct: a caller's stale three-tensor fields
  // would make init refuse a mix of the two forms.
  from_st.q_proj_weight = from_st.k_proj_bias = sample_attn_in_proj_bias;
  ea_weights_layout st_layout = EA_WEIGHTS_PACKED, blob_layout = EA_WEIGHTS_ROW_MAJOR;
  ASSERT_EQ(
      ea_weight_file_find_mha(&st_file, "attn.", kDModel, kHeads, kHeads, &from_st, &st_layout),
      EA_OK);
  ASSERT_EQ(ea_weight_file_find_mha(&blob_file, "attn.", kDModel, kHeads, kHeads, &from_blob,
                                    &blob_layout),
            EA_OK);
  EXPECT_EQ(st_layout, EA_WEIGHTS_ROW_MAJOR);
  EXPECT_EQ(blob_layout, EA_WEIGHTS_PACKED);
  EXPECT_EQ(from_st.q_proj_weight, nullptr);
  EXPECT_EQ(from_st.k_proj_bias, nullptr);
  // n_kv_heads 0 means n_heads: the same tensors.
  ea_mha_weights kv_heads_zero{};
  ea_weights_layout kv_heads_zero_layout = EA_WEIGHTS_PACKED;
  ASSERT_EQ(ea_weight_file_find_mha(&st_file, "attn.", kDModel, kHeads, 0, &kv_heads_zero,
                                    &kv_heads_zero_layout),
            EA_OK);
  EXPECT_EQ(memcmp(&kv_heads_zero, &from_st, sizeof(from_st)), 0);
  EXPECT_EQ(kv_heads_zero_layout, st_layout);
  const ea_mha_weights from_header =
      edgeattn_test::InProjWeights(sample_attn_in_proj_weight, sample_attn_in_proj_bias,
                                   sample_attn_out_proj_weight, sample_attn_out_proj_bias);
  const std::vector<float> y = run(from_st, st_layout);
  EXPECT_EQ(run(from_blob, blob_layout), y);
  EXPECT_EQ(run(from_header, EA_WEIGHTS_PACKED), y);

  // Shapes that are not the plan's, and a prefix without the module.
  ea_mha_weights untouched{};
  ea_weights_layout layout = EA_WEIGHTS_ROW_MAJOR;
  EXPECT_EQ(ea_weight_file_find_mha(&blob_file, "attn.", kDModel, kHeads, 2, &untouched, &layout),
            EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_weight_file_find_mha(&blob_file, "attn.", 80, kHeads, kHeads, &untouched, &layout),
            EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(
      ea_weight_file_find_mha(&blob_file, "decoder.", kDModel, kHeads, kHeads, &untouched, &layout),
      EA_ERR_NOT_FOUND);
  EXPECT_EQ(ea_weight_file_find_mha(&blob_file, "attn.", kDModel, 3, 3, &untouched, &layout),
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

// A safetensors file from text: the JSON header padded with spaces to a
// multiple of 8 bytes (as the safetensors library writes it; `pad` spaces
// more or fewer when given), then data_bytes of data.
AlignedBytes Safetensors(const std::string& json, size_t data_bytes, int pad = -1) {
  const size_t spaces = pad >= 0 ? static_cast<size_t>(pad) : (8 - json.size() % 8) % 8;
  AlignedBytes bytes(8 + json.size() + spaces + data_bytes);
  const uint64_t n = json.size() + spaces;
  memcpy(bytes.data(), &n, 8);
  memcpy(bytes.data() + 8, json.data(), json.size());
  memset(bytes.data() + 8 + json.size(), ' ', spaces);
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

  // An escaped name is found by its text.
  const std::string escaped =
      R"({"f\u0033\"2":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"i8":{"dtype":"I8","shape":[3],"data_offsets":[4,7]}})";
  const AlignedBytes aligned = Safetensors(escaped + std::string(8 - escaped.size() % 8, ' '), 7);
  ASSERT_EQ(ea_weight_file_open(&file, aligned.data(), aligned.size()), EA_OK);
  ea_tensor_view view{};
  EXPECT_EQ(ea_weight_file_find(&file, "i8", &view), EA_OK);
  EXPECT_EQ(ea_weight_file_find(&file, "f3\"2", &view), EA_OK);
  EXPECT_EQ(view.data, aligned.data() + 8 + escaped.size() + 8 - escaped.size() % 8);
}

// One safetensors tensor as header text: its key (raw JSON, escapes as
// written), dtype, shape (JSON) and data_offsets.
struct Entry {
  std::string key;
  std::string dtype;
  std::string shape;
  uint64_t begin, end;
};
std::string Header(const std::vector<Entry>& entries, const std::string& extra = "") {
  std::string json = "{" + extra;  // extra: members ending in ','
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (i > 0) json += ",";
    json += "\"" + e.key + "\":{\"dtype\":\"" + e.dtype + "\",\"shape\":" + e.shape +
            ",\"data_offsets\":[" + std::to_string(e.begin) + "," + std::to_string(e.end) + "]}";
  }
  return json + "}";
}

ea_status OpenStatus(const AlignedBytes& bytes) {
  ea_weight_file file{};
  return ea_weight_file_open(&file, bytes.data(), bytes.size());
}
ea_status OpenStatus(const std::vector<Entry>& entries, size_t data_bytes) {
  return OpenStatus(Safetensors(Header(entries), data_bytes));
}

// Two one-byte tensors named by raw JSON text.
ea_status OpenTwo(const std::string& a, const std::string& b) {
  return OpenStatus({{a, "I8", "[1]", 0, 1}, {b, "I8", "[1]", 1, 2}}, 2);
}
ea_status OpenOne(const std::string& key) { return OpenStatus({{key, "I8", "[1]", 0, 1}}, 1); }

// Python's json keeps the last of two equal keys, the reference reader a
// map entry; edgeattn found the first: one file, different weights. Names
// are equal when their decoded bytes are, however they are escaped.
TEST(WeightFile, SafetensorsNamesGivenTwiceAreRefused) {
  EXPECT_EQ(OpenTwo("w", "w"), EA_ERR_BAD_FILE);
  EXPECT_EQ(OpenTwo("w", R"(\u0077)"), EA_ERR_BAD_FILE);
  EXPECT_EQ(OpenTwo(R"(a\/b)", "a/b"), EA_ERR_BAD_FILE);
  EXPECT_EQ(OpenTwo(R"(\t)", R"(\u0009)"), EA_ERR_BAD_FILE);
  EXPECT_EQ(OpenTwo("\xc3\xa9", R"(\u00e9)"), EA_ERR_BAD_FILE);      // U+00E9 raw, escaped
  EXPECT_EQ(OpenTwo(R"(\u00E9)", R"(\u00e9)"), EA_ERR_BAD_FILE);     // hex digits' case
  EXPECT_EQ(OpenTwo("\xe2\x82\xac", R"(\u20ac)"), EA_ERR_BAD_FILE);  // U+20AC
  EXPECT_EQ(OpenTwo("\xf0\x9f\x98\x80", R"(\ud83d\ude00)"), EA_ERR_BAD_FILE);  // a pair
  // The same name far apart, behind other names.
  EXPECT_EQ(OpenStatus({{"x", "I8", "[1]", 0, 1},
                        {"a", "I8", "[1]", 1, 2},
                        {"b", "I8", "[1]", 2, 3},
                        {R"(\u0078)", "I8", "[1]", 3, 4}},
                       4),
            EA_ERR_BAD_FILE);
  // Names that differ stay apart.
  EXPECT_EQ(OpenTwo("w", "W"), EA_OK);
  EXPECT_EQ(OpenTwo("w", "w "), EA_OK);
  EXPECT_EQ(OpenTwo(R"(\u00e9)", R"(\u00e8)"), EA_OK);
  EXPECT_EQ(OpenTwo(R"(\ud83d\ude00)", R"(\ud83d\ude01)"), EA_OK);
  EXPECT_EQ(OpenTwo("", "a"), EA_OK);
  // __metadata__ twice, the second escaped.
  const std::string meta = R"("__metadata__":{"a":"b"},)";
  EXPECT_EQ(OpenStatus(Safetensors(Header({{"w", "I8", "[1]", 0, 1}}, meta), 1)), EA_OK);
  EXPECT_EQ(OpenStatus(Safetensors(
                Header({{"w", "I8", "[1]", 0, 1}}, meta + R"("\u005f_metadata__":{},)"), 1)),
            EA_ERR_BAD_FILE);

  // Escaped names are found by their decoded text (U+00E9 and U+1F600 in UTF-8).
  const AlignedBytes bytes = Safetensors(
      Header({{R"(\u00e9)", "I8", "[1]", 0, 1}, {R"(\ud83d\ude00)", "I8", "[1]", 1, 2}}), 2);
  ea_weight_file file{};
  ASSERT_EQ(ea_weight_file_open(&file, bytes.data(), bytes.size()), EA_OK);
  const uint8_t* data = bytes.data() + bytes.size() - 2;
  ea_tensor_view view{};
  ASSERT_EQ(ea_weight_file_find(&file, "\xc3\xa9", &view), EA_OK);
  EXPECT_EQ(view.data, data);
  ASSERT_EQ(ea_weight_file_find(&file, "\xf0\x9f\x98\x80", &view), EA_OK);
  EXPECT_EQ(view.data, data + 1);
  EXPECT_EQ(ea_weight_file_find(&file, "\xed\xa0\xbd", &view), EA_ERR_NOT_FOUND);
}

// A string the reader cannot decode to exactly one byte sequence is refused:
// lone or misordered surrogates, malformed UTF-8, unknown escapes; in a
// name, in metadata or anywhere else.
TEST(WeightFile, SafetensorsStringsDecodeExactlyOrAreRefused) {
  const char* refused[] = {
      R"(\ud83d)",
      R"(\ude00)",
      R"(\ud83dx)",
      R"(\ud83d\u0041)",
      R"(\ude00\ud83d)",
      R"(\ud83d\ud83d)",
      R"(\u00)",
      R"(\u00g1)",
      R"(\x41)",
      R"(\U0041)",
      "\xc0\xaf",
      "\xc1\xbf",
      "\xe0\x80\xaf",
      "\xed\xa0\x80",
      "\xf0\x80\x80\xaf",
      "\xf4\x90\x80\x80",
      "\xf5\x80\x80\x80",
      "\x80",
      "\xc3",
      "\xe2\x82",
      "\xff",
      "a\x7f\xfe",
      "\t",
      R"(a\u0000b)",
  };
  for (const char* key : refused) {
    EXPECT_EQ(OpenOne(key), EA_ERR_BAD_FILE) << key;
  }
  const char* accepted[] = {R"(\ud7ff)",    R"(\ue000)", R"(\udbff\udfff)",    "\xf4\x8f\xbf\xbf",
                            "\xef\xbf\xbf", "\x7f",      R"(\"\\\/\b\f\n\r\t)"};
  for (const char* key : accepted) {
    EXPECT_EQ(OpenOne(key), EA_OK) << key;
  }
  for (const std::string& meta : {std::string(R"("__metadata__":{"k":"\ud800"},)"),
                                  std::string("\"__metadata__\":{\"k\":\"\xc0\x80\"},"),
                                  std::string(R"("__metadata__":{"k":["\udc00"]},)")}) {
    EXPECT_EQ(OpenStatus(Safetensors(Header({{"w", "I8", "[1]", 0, 1}}, meta), 1)), EA_ERR_BAD_FILE)
        << meta;
  }
}

TEST(WeightFile, SafetensorsNamesLongerThanTheLimitAreRefused) {
  const std::string longest(EA_TENSOR_MAX_NAME, 'n');
  EXPECT_EQ(OpenOne(longest), EA_OK);
  EXPECT_EQ(OpenOne(longest + "n"), EA_ERR_BAD_FILE);
  // Counted in decoded UTF-8 bytes: U+00E9 is two.
  EXPECT_EQ(OpenOne(longest.substr(2) + R"(\u00e9)"), EA_OK);
  EXPECT_EQ(OpenOne(longest.substr(1) + R"(\u00e9)"), EA_ERR_BAD_FILE);
  std::string escaped;
  for (int i = 0; i < EA_TENSOR_MAX_NAME; ++i) escaped += R"(\u006e)";
  EXPECT_EQ(OpenOne(escaped), EA_OK);
  EXPECT_EQ(OpenOne(escaped + "n"), EA_ERR_BAD_FILE);
  const AlignedBytes bytes = Safetensors(Header({{escaped, "I8", "[1]", 0, 1}}), 1);
  ea_weight_file file{};
  ASSERT_EQ(ea_weight_file_open(&file, bytes.data(), bytes.size()), EA_OK);
  ea_tensor_view view{};
  EXPECT_EQ(ea_weight_file_find(&file, longest.c_str(), &view), EA_OK);
}

// Whether a tensor can be viewed in place is a property of the file: open
// says so (EA_ERR_UNSUPPORTED), and find never does.
TEST(WeightFile, UnalignedSafetensorsAreRefusedAtOpen) {
  const std::string f32 = Header({{"f", "F32", "[1]", 0, 4}});
  const std::string f64 = Header({{"d", "F64", "[1]", 0, 8}});
  const std::string i8 = Header({{"i", "I8", "[1]", 0, 1}});
  const int to8 = static_cast<int>((8 - f32.size() % 8) % 8);
  EXPECT_EQ(OpenStatus(Safetensors(f32, 4)), EA_OK);
  EXPECT_EQ(OpenStatus(Safetensors(f32, 4, to8 + 4)), EA_OK);  // 4-aligned is enough
  EXPECT_EQ(OpenStatus(Safetensors(f32, 4, to8 + 1)), EA_ERR_UNSUPPORTED);
  EXPECT_EQ(OpenStatus(Safetensors(f32, 4, to8 + 2)), EA_ERR_UNSUPPORTED);
  const int to8_d = static_cast<int>((8 - f64.size() % 8) % 8);
  EXPECT_EQ(OpenStatus(Safetensors(f64, 8, to8_d + 4)), EA_ERR_UNSUPPORTED);
  EXPECT_EQ(OpenStatus(Safetensors(f64, 8, to8_d + 8)), EA_OK);
  for (int pad = 0; pad < 8; ++pad) EXPECT_EQ(OpenStatus(Safetensors(i8, 1, pad)), EA_OK);
  // Aligned data, a tensor after one of another size; an empty one too.
  EXPECT_EQ(OpenStatus({{"i", "I8", "[3]", 0, 3}, {"f", "F32", "[1]", 3, 7}}, 7),
            EA_ERR_UNSUPPORTED);
  EXPECT_EQ(OpenStatus({{"i", "I8", "[1]", 0, 1}, {"f", "F32", "[0]", 1, 1}}, 1),
            EA_ERR_UNSUPPORTED);
  EXPECT_EQ(OpenStatus({{"f", "F32", "[1]", 0, 4}, {"i", "I8", "[3]", 4, 7}}, 7), EA_OK);
  // A file that also breaks the format is a bad file first.
  EXPECT_EQ(OpenStatus(Safetensors(f32, 5, to8 + 1)), EA_ERR_BAD_FILE);
  EXPECT_EQ(OpenStatus(
                {{"i", "I8", "[3]", 0, 3}, {"f", "F32", "[1]", 3, 7}, {"f", "I8", "[1]", 7, 8}}, 8),
            EA_ERR_BAD_FILE);
}

TEST(WeightFile, EmptyTensorsAreLegalInAnyDimOrder) {
  const uint64_t big = uint64_t{1} << 40;
  const std::string huge = "[" + std::to_string(big) + "," + std::to_string(big);
  for (const std::string& shape :
       {std::string("[4,0]"), std::string("[0,4]"), std::string("[0]"), std::string("[3,0,5]"),
        huge + ",0]", "[0," + huge.substr(1) + "]"}) {
    EXPECT_EQ(OpenStatus({{"e", "F32", shape, 0, 0}}, 0), EA_OK) << shape;
    EXPECT_EQ(OpenStatus({{"e", "F32", shape, 0, 4}}, 4), EA_ERR_BAD_FILE) << shape;
  }
  EXPECT_EQ(OpenStatus({{"e", "F32", huge + "]", 0, 0}}, 0), EA_ERR_BAD_FILE);
  EXPECT_EQ(OpenStatus({{"e", "I8", "[3,1]", 0, 0}}, 0), EA_ERR_BAD_FILE);
  // An empty tensor's view: its shape, no bytes, beside a full one.
  const AlignedBytes bytes =
      Safetensors(Header({{"w", "F32", "[2]", 0, 8}, {"e", "F32", "[4,0]", 8, 8}}), 8);
  ea_weight_file file{};
  ASSERT_EQ(ea_weight_file_open(&file, bytes.data(), bytes.size()), EA_OK);
  ea_tensor_view view{};
  ASSERT_EQ(ea_weight_file_find(&file, "e", &view), EA_OK);
  EXPECT_EQ(view.rank, 2);
  EXPECT_EQ(view.dims[0], 4);
  EXPECT_EQ(view.dims[1], 0);
  EXPECT_EQ(view.bytes, 0u);
  EXPECT_EQ(view.data, bytes.data() + bytes.size());
}

// The format forbids holes and overlaps (polyglot files): the data after the
// header is every tensor's bytes once, in any header order; an empty tensor
// sits where one ends and the next begins (the reference's order, (begin,
// end)).
TEST(WeightFile, SafetensorsDataIsCoveredExactlyOnce) {
  const Entry a{"a", "I8", "[2]", 0, 2}, b{"b", "I8", "[2]", 2, 4};
  EXPECT_EQ(OpenStatus({a, b}, 4), EA_OK);
  EXPECT_EQ(OpenStatus({b, a}, 4), EA_OK);
  EXPECT_EQ(OpenStatus({a, {"b", "I8", "[2]", 1, 3}}, 3), EA_ERR_BAD_FILE);  // overlap
  EXPECT_EQ(OpenStatus({a, {"b", "I8", "[2]", 0, 2}}, 2), EA_ERR_BAD_FILE);  // the same bytes
  EXPECT_EQ(OpenStatus({a, {"b", "I8", "[2]", 3, 5}}, 5), EA_ERR_BAD_FILE);  // a hole
  EXPECT_EQ(OpenStatus({a, b}, 5), EA_ERR_BAD_FILE);                         // one after the last
  EXPECT_EQ(OpenStatus({{"a", "I8", "[2]", 1, 3}}, 3), EA_ERR_BAD_FILE);     // one before the first
  EXPECT_EQ(OpenStatus(Safetensors("{}", 1)), EA_ERR_BAD_FILE);
  EXPECT_EQ(OpenStatus(Safetensors(R"({"__metadata__":{}})", 0)), EA_OK);
  const std::string e = "I8";
  EXPECT_EQ(OpenStatus({a, {"e", e, "[0]", 2, 2}, b}, 4), EA_OK);
  EXPECT_EQ(OpenStatus({{"e", e, "[0]", 0, 0}, a, b}, 4), EA_OK);
  EXPECT_EQ(OpenStatus({a, b, {"e", e, "[0]", 4, 4}, {"f", e, "[0]", 4, 4}}, 4), EA_OK);
  EXPECT_EQ(OpenStatus({a, {"e", e, "[0]", 1, 1}, b}, 4), EA_ERR_BAD_FILE);  // inside a
  EXPECT_EQ(OpenStatus({a, b, {"e", e, "[0]", 5, 5}}, 4), EA_ERR_BAD_FILE);  // outside
  EXPECT_EQ(OpenStatus({{"e", e, "[0]", 0, 0}}, 0), EA_OK);
}

// A blob of n empty tensors (I8 [0], all at the end of the table) named by
// name(i): the issue's 52,000 make 10 MB.
AlignedBytes ManyTensorBlob(uint32_t n, std::string (*name)(uint32_t)) {
  const size_t table = 64 + size_t{192} * n;
  AlignedBytes blob(table);
  memcpy(blob.data(), "EAWEIGHT", 8);
  Put32(blob, 8, 1);
  Put32(blob, 12, n);
  Put64(blob, 16, table);
  Put64(blob, 24, table);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t entry = 64 + size_t{192} * i;
    const std::string text = name(i);
    memcpy(blob.data() + entry, text.c_str(), text.size() + 1);
    Put32(blob, entry + 96, EA_TENSOR_I8);
    Put32(blob, entry + 104, 1);
    Put64(blob, entry + 112, table);  // 64 (1 + 3 n): aligned; every tensor is empty
  }
  return blob;
}

std::string Numbered(uint32_t i) { return "t" + std::to_string(i); }

// The same as safetensors: I8 [1] tensors, listed last to first (the reader
// sorts their ranges), "t<i>" at byte i of the data.
AlignedBytes ManyTensorSafetensors(uint32_t n) {
  std::vector<Entry> entries;
  for (uint32_t i = n; i-- > 0;) entries.push_back({Numbered(i), "I8", "[1]", i, i + 1u});
  return Safetensors(Header(entries), n);
}

// The issue's file: 52,000 entries, which open compared pairwise (1.4e9 name
// compares). The plain open has index room for 128 and says so; with scratch
// the file opens, every name is found, and a name given twice far apart or
// two overlapping ranges are still refused. (HeapSortCompares... below
// bounds the compares; the fuzz harness runs such files under -timeout.)
TEST(WeightFile, FilesOfManyTensorsOpenWithScratch) {
#ifdef EDGEATTN_TEST_SMALL_MEMORY
  // The boards' 16 MiB test heap holds the 10 MB blob but not it and the
  // safetensors text beside it, and their emulated core builds them slowly:
  // 8,000 tensors there (still 62 times the plain open's room).
  constexpr uint32_t kTensors = 8000;
#else
  constexpr uint32_t kTensors = 52000;
#endif
  for (int format = 0; format < 2; ++format) {
    SCOPED_TRACE(format == 0 ? "blob" : "safetensors");
    AlignedBytes bytes =
        format == 0 ? ManyTensorBlob(kTensors, Numbered) : ManyTensorSafetensors(kTensors);
    ea_weight_file file;
    memset(&file, 0xA5, sizeof(file));
    const ea_weight_file before = file;
    EXPECT_EQ(ea_weight_file_open(&file, bytes.data(), bytes.size()), EA_ERR_ARENA_TOO_SMALL);
    EXPECT_EQ(memcmp(&file, &before, sizeof(file)), 0);
    size_t scratch_bytes = 0;
    ASSERT_EQ(ea_weight_file_scratch_size(bytes.data(), bytes.size(), &scratch_bytes), EA_OK);
    ASSERT_EQ(scratch_bytes, EA_WEIGHT_FILE_SCRATCH_BYTES(kTensors));
    AlignedBytes scratch(scratch_bytes, 0x5A);
    EXPECT_EQ(ea_weight_file_open_scratch(&file, bytes.data(), bytes.size(), scratch.data(),
                                          scratch_bytes - 1),
              EA_ERR_ARENA_TOO_SMALL);
    EXPECT_EQ(scratch.data()[0], 0x5A);  // not written
    ASSERT_EQ(ea_weight_file_open_scratch(&file, bytes.data(), bytes.size(), scratch.data(),
                                          scratch_bytes),
              EA_OK);
    EXPECT_EQ(file.tensor_count, kTensors);
    for (uint32_t i : {uint32_t{0}, uint32_t{1}, kTensors / 3, kTensors / 2, kTensors - 1}) {
      ea_tensor_view view{};
      ASSERT_EQ(ea_weight_file_find(&file, Numbered(i).c_str(), &view), EA_OK) << i;
      EXPECT_EQ(view.rank, 1);
      EXPECT_EQ(view.dims[0], format == 0 ? 0 : 1);
      if (format == 1) {
        EXPECT_EQ(view.data, bytes.data() + bytes.size() - kTensors + i);
      }
    }
    ea_tensor_view view{};
    EXPECT_EQ(ea_weight_file_find(&file, Numbered(kTensors).c_str(), &view), EA_ERR_NOT_FOUND);
  }
  // Refusals that need the whole index.
  AlignedBytes blob = ManyTensorBlob(kTensors, Numbered);
  memcpy(blob.data() + 64 + size_t{192} * (kTensors - 1), "t0", 3);
  AlignedBytes scratch(EA_WEIGHT_FILE_SCRATCH_BYTES(kTensors));
  ea_weight_file file{};
  EXPECT_EQ(
      ea_weight_file_open_scratch(&file, blob.data(), blob.size(), scratch.data(), scratch.size()),
      EA_ERR_BAD_FILE);
  std::vector<Entry> entries;
  for (uint32_t i = 0; i < kTensors; ++i) entries.push_back({Numbered(i), "I8", "[1]", i, i + 1u});
  entries[kTensors / 3].begin = 7;  // over t7
  entries[kTensors / 3].end = 8;
  const AlignedBytes overlapping = Safetensors(Header(entries), kTensors);
  EXPECT_EQ(ea_weight_file_open_scratch(&file, overlapping.data(), overlapping.size(),
                                        scratch.data(), scratch.size()),
            EA_ERR_BAD_FILE);
}

// The index sort's worst case, counted: at most 2 n + 2 n log2 n compares on
// sorted, reversed, constant, organ-pipe and pseudo-random keys.
TEST(WeightFile, HeapSortComparesNLogNTimes) {
  for (size_t n : {0u, 1u, 2u, 3u, 17u, 1000u, 52000u}) {
    for (int order = 0; order < 5; ++order) {
      std::vector<edgeattn::IndexRecord> records(n);
      uint32_t state = 12345;
      for (size_t i = 0; i < n; ++i) {
        state = state * 1664525u + 1013904223u;
        const size_t keys[] = {i, n - i, 7, i < n / 2 ? i : n - i, state >> 8};
        records[i] = edgeattn::IndexRecord{keys[order], i};
      }
      size_t compares = 0;
      edgeattn::HeapSort(
          records.data(), n,
          [&compares](const edgeattn::IndexRecord& x, const edgeattn::IndexRecord& y) {
            ++compares;
            return x.a < y.a;
          });
      const double bound = n < 2 ? 0.0 : 2.0 * n + 2.0 * n * std::log2(static_cast<double>(n));
      EXPECT_LE(static_cast<double>(compares), bound) << n << " order " << order;
      for (size_t i = 1; i < n; ++i) ASSERT_LE(records[i - 1].a, records[i].a) << n << " " << i;
    }
  }
}

// The plain open's index room, at its edge: 128 tensors open, 129 need scratch.
TEST(WeightFile, PlainOpenHoldsOneHundredTwentyEightTensors) {
  for (uint32_t n :
       {uint32_t{EA_WEIGHT_FILE_OPEN_MAX_TENSORS}, uint32_t{EA_WEIGHT_FILE_OPEN_MAX_TENSORS + 1}}) {
    const ea_status want = n <= EA_WEIGHT_FILE_OPEN_MAX_TENSORS ? EA_OK : EA_ERR_ARENA_TOO_SMALL;
    EXPECT_EQ(OpenStatus(ManyTensorBlob(n, Numbered)), want) << n;
    EXPECT_EQ(OpenStatus(ManyTensorSafetensors(n)), want) << n;
  }
  // A file too big for the index and also broken otherwise: the bad file first.
  AlignedBytes blob = ManyTensorBlob(200, Numbered);
  Put32(blob, 64 + 96, 77);
  EXPECT_EQ(OpenStatus(blob), EA_ERR_BAD_FILE);
  // Names given twice are found only with the index: its room comes first.
  blob = ManyTensorBlob(200, [](uint32_t) { return std::string("same"); });
  EXPECT_EQ(OpenStatus(blob), EA_ERR_ARENA_TOO_SMALL);
  blob = ManyTensorBlob(100, [](uint32_t) { return std::string("same"); });
  EXPECT_EQ(OpenStatus(blob), EA_ERR_BAD_FILE);
}

// weight_file.h's argument statuses, each at its edge, and nothing written
// on a refusal.
TEST(WeightFile, ArgumentStatusesAndUntouchedOutputs) {
  const AlignedBytes st = Copy(kSampleSafetensors, kSampleSafetensors_size);
  ea_weight_file file;
  memset(&file, 0xA5, sizeof(file));
  const ea_weight_file before = file;
  EXPECT_EQ(ea_weight_file_open(nullptr, st.data(), st.size()), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_weight_file_open(&file, nullptr, 0), EA_ERR_NULL_POINTER);
  AlignedBytes shifted(st.size() + 8);
  memcpy(shifted.data() + 4, st.data(), st.size());
  EXPECT_EQ(ea_weight_file_open(&file, shifted.data() + 4, st.size()), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_weight_file_open(&file, st.data(), st.size() - 1), EA_ERR_BAD_FILE);
  EXPECT_EQ(memcmp(&file, &before, sizeof(file)), 0);

  // open_scratch: NULL, misaligned, over the file or the struct; adjacent is fine.
  AlignedBytes scratch(EA_WEIGHT_FILE_SCRATCH_BYTES(16) + 64);
  const size_t need = EA_WEIGHT_FILE_SCRATCH_BYTES(9);  // the sample's 9 tensors
  EXPECT_EQ(ea_weight_file_open_scratch(&file, st.data(), st.size(), nullptr, need),
            EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_weight_file_open_scratch(&file, st.data(), st.size(), scratch.data() + 4, need),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_weight_file_open_scratch(&file, st.data(), st.size(),
                                        const_cast<uint8_t*>(st.data()) + 8, need),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_weight_file_open_scratch(&file, st.data(), st.size(),
                                        const_cast<uint8_t*>(st.data()) + st.size() - 8, 8),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_weight_file_open_scratch(&file, st.data(), st.size(), &file, need),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_weight_file_open_scratch(&file, st.data(), st.size(), scratch.data(), need - 1),
            EA_ERR_ARENA_TOO_SMALL);
  EXPECT_EQ(memcmp(&file, &before, sizeof(file)), 0);
  const AlignedBytes blob = Copy(kSampleBlob, kSampleBlob_size);
  ASSERT_EQ(blob.size() % 8, 0u);
  AlignedBytes joined(blob.size() + need);  // the file, then its scratch
  memcpy(joined.data(), blob.data(), blob.size());
  EXPECT_EQ(ea_weight_file_open_scratch(&file, joined.data(), blob.size(),
                                        joined.data() + blob.size(), need),
            EA_OK);
  EXPECT_EQ(file.tensor_count, 9u);
  const AlignedBytes empty = Safetensors("{}", 0);
  EXPECT_EQ(ea_weight_file_open_scratch(&file, empty.data(), empty.size(), nullptr, 0), EA_OK);
  EXPECT_EQ(file.tensor_count, 0u);

  // scratch_size: the first step's statuses only.
  size_t bytes = 12345;
  EXPECT_EQ(ea_weight_file_scratch_size(nullptr, 0, &bytes), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_weight_file_scratch_size(st.data(), st.size(), nullptr), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_weight_file_scratch_size(shifted.data() + 4, st.size(), &bytes),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_weight_file_scratch_size(st.data(), st.size() - 1, &bytes), EA_ERR_BAD_FILE);
  EXPECT_EQ(bytes, 12345u);
  EXPECT_EQ(ea_weight_file_scratch_size(empty.data(), empty.size(), &bytes), EA_OK);
  EXPECT_EQ(bytes, 0u);
  const AlignedBytes twice =
      Safetensors(Header({{"w", "I8", "[1]", 0, 1}, {"w", "I8", "[1]", 1, 2}}), 2);
  EXPECT_EQ(ea_weight_file_scratch_size(twice.data(), twice.size(), &bytes), EA_OK);
  EXPECT_EQ(bytes, EA_WEIGHT_FILE_SCRATCH_BYTES(2));

  // find: NULL arguments, a struct never opened, a miss: the view untouched.
  ASSERT_EQ(ea_weight_file_open(&file, st.data(), st.size()), EA_OK);
  ea_tensor_view view;
  memset(&view, 0x3C, sizeof(view));
  const ea_tensor_view view_before = view;
  EXPECT_EQ(ea_weight_file_find(nullptr, "half", &view), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_weight_file_find(&file, nullptr, &view), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_weight_file_find(&file, "half", nullptr), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_weight_file_find(&before, "half", &view), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_weight_file_find(&file, "hal", &view), EA_ERR_NOT_FOUND);
  EXPECT_EQ(ea_weight_file_find(&file, "halff", &view), EA_ERR_NOT_FOUND);
  EXPECT_EQ(ea_weight_file_find(&file, "", &view), EA_ERR_NOT_FOUND);
  EXPECT_EQ(memcmp(&view, &view_before, sizeof(view)), 0);
}

// A blob from (name, dtype, layout, dims) rows, tensors zero-filled, the
// layout of docs/WEIGHT_FILES.md written here again.
struct BlobRow {
  std::string name;
  ea_tensor_dtype dtype;
  ea_tensor_layout layout;
  std::vector<int64_t> dims;
};
AlignedBytes Blob(const std::vector<BlobRow>& rows) {
  const size_t element[] = {0, 4, 2, 2, 8, 1, 1, 2, 4, 8, 1};
  std::vector<uint64_t> offsets, sizes;
  uint64_t cursor = 64 + 192 * rows.size();
  for (const BlobRow& r : rows) {
    uint64_t bytes = element[r.dtype];
    for (size_t i = 0; i < r.dims.size(); ++i) {
      const uint64_t d = static_cast<uint64_t>(r.dims[i]);
      bytes *= r.layout == EA_TENSOR_PACKED_LINEAR && i == 0 ? (d + 63) / 64 * 64 : d;
    }
    cursor = (cursor + 63) / 64 * 64;
    offsets.push_back(cursor);
    sizes.push_back(bytes);
    cursor += bytes;
  }
  AlignedBytes blob(cursor);
  memcpy(blob.data(), "EAWEIGHT", 8);
  Put32(blob, 8, 1);
  Put32(blob, 12, static_cast<uint32_t>(rows.size()));
  Put64(blob, 16, cursor);
  Put64(blob, 24, 64 + 192 * rows.size());
  for (size_t t = 0; t < rows.size(); ++t) {
    const size_t entry = 64 + 192 * t;
    memcpy(blob.data() + entry, rows[t].name.c_str(), rows[t].name.size() + 1);
    Put32(blob, entry + 96, rows[t].dtype);
    Put32(blob, entry + 100, rows[t].layout);
    Put32(blob, entry + 104, static_cast<uint32_t>(rows[t].dims.size()));
    Put64(blob, entry + 112, offsets[t]);
    Put64(blob, entry + 120, sizes[t]);
    for (size_t i = 0; i < rows[t].dims.size(); ++i) {
      Put64(blob, entry + 128 + 8 * i, static_cast<uint64_t>(rows[t].dims[i]));
    }
  }
  return blob;
}

TEST(WeightFile, BlobEmptyTensorsAreLegalInAnyDimOrder) {
  const int64_t big = int64_t{1} << 40;
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{4, 0}, {0, 4}, {big, big, 0}, {0, big, big}, {3, 0, 5}}) {
    EXPECT_EQ(OpenStatus(Blob({{"e", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, dims}})), EA_OK)
        << dims[0] << " " << dims[1];
  }
  EXPECT_EQ(OpenStatus(Blob({{"p", EA_TENSOR_F32, EA_TENSOR_PACKED_LINEAR, {0, big}}})), EA_OK);
  // Packed: the round-up of n_out to 64 rows must not refuse an empty matrix.
  EXPECT_EQ(OpenStatus(Blob({{"p", EA_TENSOR_F32, EA_TENSOR_PACKED_LINEAR, {INT64_MAX, 0}}})),
            EA_OK);
  AlignedBytes huge = Blob({{"e", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {big, 0}}});
  Put64(huge, 64 + 128 + 8, static_cast<uint64_t>(big));  // [2^40, 2^40]: not empty
  EXPECT_EQ(OpenStatus(huge), EA_ERR_BAD_FILE);
}

// The two three-tensor namings find_mha reads besides in_proj: PyTorch's
// kdim form (q/k/v_proj_weight with in_proj_bias) and a Hugging Face
// module's (q_proj.weight ... with its own biases, any of them absent), with
// grouped-query widths. Every field is the file's tensor of that name, the
// others NULL; a missing weight, a wrong width and a packed W_Q are refused.
TEST(WeightFile, MhaReadsTheKdimAndHuggingFaceNames) {
  const int d = 8, heads = 4, kv_heads = 2, kv = kv_heads * (d / heads);
  const BlobRow out_w{"l.out_proj.weight", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {d, d}};
  const BlobRow out_b{"l.out_proj.bias", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {d}};
  const std::vector<BlobRow> kdim = {
      {"l.q_proj_weight", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {d, d}},
      {"l.k_proj_weight", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {kv, d}},
      {"l.v_proj_weight", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {kv, d}},
      {"l.in_proj_bias", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {d + 2 * kv}},
      out_w,
      out_b};
  const std::vector<BlobRow> hugging_face = {
      {"l.q_proj.weight", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {d, d}},
      {"l.k_proj.weight", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {kv, d}},
      {"l.v_proj.weight", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {kv, d}},
      {"l.q_proj.bias", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {d}},
      {"l.v_proj.bias", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {kv}},  // k_proj has none (Whisper)
      out_w};
  struct Found {
    ea_status status;
    ea_mha_weights weights;
    ea_weights_layout layout;
  };
  // find_mha on a blob; the views of the names it should use.
  const auto find = [&](const AlignedBytes& blob, ea_weight_file* file) {
    Found f{EA_ERR_BAD_ARGUMENT, {}, static_cast<ea_weights_layout>(9)};
    EXPECT_EQ(ea_weight_file_open(file, blob.data(), blob.size()), EA_OK);
    memset(&f.weights, 0x5C, sizeof(f.weights));
    f.status = ea_weight_file_find_mha(file, "l.", d, heads, kv_heads, &f.weights, &f.layout);
    return f;
  };
  const auto view = [](const ea_weight_file& file, const char* name) -> const float* {
    ea_tensor_view v{};
    return ea_weight_file_find(&file, name, &v) == EA_OK ? static_cast<const float*>(v.data)
                                                         : nullptr;
  };
  {
    const AlignedBytes blob = Blob(kdim);
    ea_weight_file file{};
    const Found f = find(blob, &file);
    ASSERT_EQ(f.status, EA_OK);
    EXPECT_EQ(f.layout, EA_WEIGHTS_ROW_MAJOR);
    EXPECT_EQ(f.weights.in_proj_weight, nullptr);
    EXPECT_EQ(f.weights.q_proj_weight, view(file, "l.q_proj_weight"));
    EXPECT_EQ(f.weights.k_proj_weight, view(file, "l.k_proj_weight"));
    EXPECT_EQ(f.weights.v_proj_weight, view(file, "l.v_proj_weight"));
    EXPECT_EQ(f.weights.in_proj_bias, view(file, "l.in_proj_bias"));
    EXPECT_EQ(f.weights.q_proj_bias, nullptr);
    EXPECT_EQ(f.weights.k_proj_bias, nullptr);
    EXPECT_EQ(f.weights.v_proj_bias, nullptr);
    EXPECT_EQ(f.weights.out_proj_weight, view(file, "l.out_proj.weight"));
    EXPECT_EQ(f.weights.out_proj_bias, view(file, "l.out_proj.bias"));
  }
  {
    const AlignedBytes blob = Blob(hugging_face);
    ea_weight_file file{};
    const Found f = find(blob, &file);
    ASSERT_EQ(f.status, EA_OK);
    EXPECT_EQ(f.weights.in_proj_weight, nullptr);
    EXPECT_EQ(f.weights.in_proj_bias, nullptr);
    EXPECT_EQ(f.weights.q_proj_weight, view(file, "l.q_proj.weight"));
    EXPECT_EQ(f.weights.k_proj_weight, view(file, "l.k_proj.weight"));
    EXPECT_EQ(f.weights.v_proj_weight, view(file, "l.v_proj.weight"));
    EXPECT_EQ(f.weights.q_proj_bias, view(file, "l.q_proj.bias"));
    EXPECT_EQ(f.weights.k_proj_bias, nullptr);
    EXPECT_EQ(f.weights.v_proj_bias, view(file, "l.v_proj.bias"));
    EXPECT_EQ(f.weights.out_proj_bias, nullptr);
  }
  // Refusals: *weights and *layout untouched.
  const auto refused = [&](std::vector<BlobRow> rows, ea_status want, const char* what) {
    const AlignedBytes blob = Blob(rows);
    ea_weight_file file{};
    const Found f = find(blob, &file);
    EXPECT_EQ(f.status, want) << what;
    ea_mha_weights canary;
    memset(&canary, 0x5C, sizeof(canary));
    EXPECT_EQ(memcmp(&f.weights, &canary, sizeof(canary)), 0) << what;
    EXPECT_EQ(f.layout, 9) << what;
  };
  std::vector<BlobRow> rows = hugging_face;
  rows.erase(rows.begin() + 1);
  refused(rows, EA_ERR_NOT_FOUND, "k_proj.weight missing");
  rows = kdim;
  rows[2].dims = {d, d};
  refused(rows, EA_ERR_BAD_DIMENSION, "v_proj_weight of MHA's width in a GQA plan");
  rows = hugging_face;
  rows[4].dims = {d};
  refused(rows, EA_ERR_BAD_DIMENSION, "v_proj.bias of the wrong length");
  rows = kdim;
  rows[0].layout = EA_TENSOR_PACKED_LINEAR;
  refused(rows, EA_ERR_BAD_FILE, "a packed W_Q");
  rows = hugging_face;
  rows.pop_back();
  refused(rows, EA_ERR_NOT_FOUND, "out_proj.weight missing");
  // in_proj_weight beside the three names: nn.MultiheadAttention's naming first.
  rows = kdim;
  rows.push_back({"l.in_proj_weight", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {d + 2 * kv, d}});
  const AlignedBytes both = Blob(rows);
  ea_weight_file file{};
  const Found f = find(both, &file);
  ASSERT_EQ(f.status, EA_OK);
  EXPECT_EQ(f.weights.in_proj_weight, view(file, "l.in_proj_weight"));
  EXPECT_EQ(f.weights.q_proj_weight, nullptr);
}

// ea_weight_file_find_mha's statuses in the header's order, each at its edge;
// *weights and *layout untouched by every refusal.
TEST(WeightFile, MhaStatusesInTheirOrder) {
  const int d = 8, heads = 4;
  const std::vector<BlobRow> full = {
      {"in_proj_weight", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {3 * d, d}},
      {"in_proj_bias", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {3 * d}},
      {"out_proj.weight", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {d, d}},
      {"out_proj.bias", EA_TENSOR_F32, EA_TENSOR_ROW_MAJOR, {d}}};
  ea_mha_weights weights;
  memset(&weights, 0x77, sizeof(weights));
  const ea_mha_weights weights_before = weights;
  ea_weights_layout layout = static_cast<ea_weights_layout>(5);
  auto run = [&](const std::vector<BlobRow>& rows, const char* prefix, int32_t d_model,
                 int32_t n_heads, int32_t n_kv) {
    const AlignedBytes blob = Blob(rows);
    ea_weight_file file{};
    EXPECT_EQ(ea_weight_file_open(&file, blob.data(), blob.size()), EA_OK);
    const ea_status status =
        ea_weight_file_find_mha(&file, prefix, d_model, n_heads, n_kv, &weights, &layout);
    if (status != EA_OK) {
      EXPECT_EQ(memcmp(&weights, &weights_before, sizeof(weights)), 0);
      EXPECT_EQ(layout, 5);
    }
    return status;
  };
  EXPECT_EQ(run(full, "", 0, heads, heads), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(run(full, "", d, 0, heads), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(run(full, "", d, heads, -1), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(run(full, "", d, 3, 3), EA_ERR_HEADS_MISMATCH);
  EXPECT_EQ(run(full, "", d, heads, 3), EA_ERR_HEADS_MISMATCH);
  EXPECT_EQ(run(full, std::string(257, 'p').c_str(), 0, heads, heads), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(run(full, std::string(257, 'p').c_str(), d, heads, heads), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(run(full, std::string(256, 'p').c_str(), d, heads, heads), EA_ERR_NOT_FOUND);
  EXPECT_EQ(run({full[1], full[2], full[3]}, "", d, heads, heads), EA_ERR_NOT_FOUND);
  EXPECT_EQ(run({full[0], full[1], full[3]}, "", d, heads, heads), EA_ERR_NOT_FOUND);
  std::vector<BlobRow> rows = full;
  rows[0].layout = EA_TENSOR_PACKED_LINEAR;
  rows[0].dims = {3 * d, d + 1};  // the shape is wrong too: the layout comes first
  EXPECT_EQ(run(rows, "", d, heads, heads), EA_ERR_BAD_FILE);
  rows = full;
  rows[0].dtype = EA_TENSOR_F16;
  EXPECT_EQ(run(rows, "", d, heads, heads), EA_ERR_BAD_DIMENSION);
  rows = full;
  rows[1].dims = {3 * d + 1};
  EXPECT_EQ(run(rows, "", d, heads, heads), EA_ERR_BAD_DIMENSION);
  rows = full;
  rows[3].dims = {d, 1};
  EXPECT_EQ(run(rows, "", d, heads, heads), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(run(full, "", d, heads, 2), EA_ERR_BAD_DIMENSION);  // GQA wants 2 d rows
  {
    const ea_weight_file never{};
    EXPECT_EQ(ea_weight_file_find_mha(&never, "", d, heads, heads, &weights, &layout),
              EA_ERR_BAD_ARGUMENT);
    EXPECT_EQ(ea_weight_file_find_mha(nullptr, "", d, heads, heads, &weights, &layout),
              EA_ERR_NULL_POINTER);
  }
  // Accepted: GQA shapes, absent biases, both matrices packed; a prefix.
  rows = {{"l.in_proj_weight", EA_TENSOR_F32, EA_TENSOR_PACKED_LINEAR, {2 * d, d}},
          {"l.out_proj.weight", EA_TENSOR_F32, EA_TENSOR_PACKED_LINEAR, {d, d}}};
  const AlignedBytes blob = Blob(rows);
  ea_weight_file file{};
  ASSERT_EQ(ea_weight_file_open(&file, blob.data(), blob.size()), EA_OK);
  // n_kv_heads 0 means n_heads, whose in_proj has 3 d rows, not these 2 d.
  EXPECT_EQ(ea_weight_file_find_mha(&file, "l.", d, heads, 0, &weights, &layout),
            EA_ERR_BAD_DIMENSION);
  ASSERT_EQ(ea_weight_file_find_mha(&file, "l.", d, heads, 2, &weights, &layout), EA_OK);
  EXPECT_EQ(layout, EA_WEIGHTS_PACKED);
  EXPECT_EQ(weights.in_proj_bias, nullptr);
  EXPECT_EQ(weights.out_proj_bias, nullptr);
  ea_tensor_view in_w{}, out_w{};
  ASSERT_EQ(ea_weight_file_find(&file, "l.in_proj_weight", &in_w), EA_OK);
  ASSERT_EQ(ea_weight_file_find(&file, "l.out_proj.weight", &out_w), EA_OK);
  EXPECT_EQ(weights.in_proj_weight, in_w.data);
  EXPECT_EQ(weights.out_proj_weight, out_w.data);
}

}  // namespace
}  // namespace edgeattn_test
