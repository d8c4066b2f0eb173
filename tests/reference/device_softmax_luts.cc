#include "reference/device_softmax_luts.h"

#include <array>

#include "data/tflite/golden_cases.h"

namespace edgeattn_test {
namespace {

constexpr int kEntries = 513;
using Table = std::array<int16_t, kEntries>;

Table Moved(const int16_t* tflite, int phase) {
  Table table{};
  for (int i = 0; i < kEntries; ++i) {
    const int moved = i == kEntries - 1 ? tflite[i] : tflite[i] + ((i * 5 + phase) % 7) - 3;
    table[i] = static_cast<int16_t>(moved < 0 ? 0 : (moved > 32767 ? 32767 : moved));
  }
  return table;
}

}  // namespace

const int16_t* TfliteExpLut() {
  return static_cast<const int16_t*>(tflite_golden::kSoftmaxExpLut.data);
}
const int16_t* TfliteReciprocalLut() {
  return static_cast<const int16_t*>(tflite_golden::kSoftmaxOneOverOnePlusXLut.data);
}

const int16_t* DeviceExpLut() {
  static const Table table = Moved(TfliteExpLut(), 0);
  return table.data();
}
const int16_t* DeviceReciprocalLut() {
  static const Table table = Moved(TfliteReciprocalLut(), 3);
  return table.data();
}

}  // namespace edgeattn_test
