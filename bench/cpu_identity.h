// Which core a bench run came from: /proc/cpuinfo's vendor, family, model and model name, and
// what is known of its vector pipes, so that every JSON figure names its machine (a VM's model
// name is often just "Intel Xeon Processor" or "AMD EPYC"; family and model tell the core).
#ifndef EDGEATTN_BENCH_CPU_IDENTITY_H_
#define EDGEATTN_BENCH_CPU_IDENTITY_H_

#include <string>

namespace edgeattn_bench {

struct CpuIdentity {
  std::string vendor;      // vendor_id: GenuineIntel, AuthenticAMD; "?" where unreadable
  int family = -1;         // cpu family, decimal
  int model = -1;          // model, decimal
  std::string model_name;  // model name
  std::string core;        // the core these identify, e.g. "Intel Emerald Rapids"; "" if unknown
  // How the core's vector pipes are shared, from vendor documentation of the core (not
  // measured): "" where the core is unknown.
  std::string pipes;
};

// The first processor's entry of /proc/cpuinfo.
CpuIdentity ReadCpuIdentity();

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_CPU_IDENTITY_H_
