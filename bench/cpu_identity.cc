// CPU identity from /proc/cpuinfo (see cpu_identity.h).
#include "cpu_identity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace edgeattn_bench {
namespace {

// "key<tabs>: value" -> value for the given key, else empty.
std::string ValueOf(const char* line, const char* key) {
  const size_t length = strlen(key);
  if (strncmp(line, key, length) != 0) return "";
  const char* colon = strchr(line + length, ':');
  if (colon == nullptr) return "";
  std::string value = colon + 1;
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
  while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.pop_back();
  return value;
}

constexpr const char* kIntelServerPipes =
    "AVX-512 FMAs on ports 0 and 5, which also run every other vector instruction "
    "(the two 512-bit pipes are shared)";
constexpr const char* kZen4Pipes =
    "AVX-512 on 256-bit pipes: FMAs on 2 of 4 FP pipes, adds, maxima and shuffles also on "
    "the other 2";
constexpr const char* kZenPipes =
    "FMAs on 2 of 4 FP pipes, adds, maxima and shuffles also on the other 2";

void NameTheCore(CpuIdentity* cpu) {
  if (cpu->vendor == "GenuineIntel" && cpu->family == 6) {
    if (cpu->model == 207) cpu->core = "Intel Emerald Rapids";
    if (cpu->model == 143) cpu->core = "Intel Sapphire Rapids";
    if (cpu->model == 106 || cpu->model == 108) cpu->core = "Intel Ice Lake server";
    if (!cpu->core.empty()) cpu->pipes = kIntelServerPipes;
  }
  if (cpu->vendor == "AuthenticAMD") {
    const int m = cpu->model;
    if (cpu->family == 25 &&
        ((m >= 0x10 && m <= 0x1f) || (m >= 0x60 && m <= 0x7f) || (m >= 0xa0 && m <= 0xaf))) {
      cpu->core = "AMD Zen 4";
      cpu->pipes = kZen4Pipes;
    } else if (cpu->family == 25 && (m <= 0x0f || (m >= 0x20 && m <= 0x5f))) {
      cpu->core = "AMD Zen 3";
      cpu->pipes = kZenPipes;
    } else if (cpu->family == 26) {
      cpu->core = "AMD Zen 5";
      cpu->pipes = kZenPipes;
    }
  }
}

}  // namespace

CpuIdentity ReadCpuIdentity() {
  CpuIdentity cpu;
  cpu.vendor = "?";
  FILE* file = fopen("/proc/cpuinfo", "r");
  if (file == nullptr) return cpu;
  char line[512];
  while (fgets(line, sizeof line, file) != nullptr) {
    if (line[0] == '\n') break;  // the end of the first processor's entry
    std::string value;
    if (!(value = ValueOf(line, "vendor_id")).empty()) cpu.vendor = value;
    if (!(value = ValueOf(line, "cpu family")).empty()) cpu.family = atoi(value.c_str());
    if (!(value = ValueOf(line, "model name")).empty()) {
      cpu.model_name = value;
    } else if (!(value = ValueOf(line, "model")).empty()) {
      cpu.model = atoi(value.c_str());
    }
  }
  fclose(file);
  NameTheCore(&cpu);
  return cpu;
}

}  // namespace edgeattn_bench
