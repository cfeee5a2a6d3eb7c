/* registry.c: the one place where models make themselves known to the engine and the CLI.
 * Add a class, a system or a subcommand here; nothing else in sim/ names a model. */
#include "../sim/registry.h"
#include "../protocols/checker.h"
#include "cache/cache.h"
#include "bus/bus.h"
#include "cache/cgsim.h"
#include "cache/coherent.h"
#include "cpu/kernel.h"
#include "cpu/mmcore.h"
#include "cpu/pattern.h"
#include "cpu/script.h"
#include "cpu/thread_core.h"
#include "cpu/trace_core.h"
#include "dir/dircache.h"
#include "dir/directory.h"
#include "dram/dram.h"
#include "litmus/litmus.h"
#include "mem/checker.h"
#include "noc/noc.h"
#include "noc/ni.h"
#include "system/dirsmp.h"
#include "system/smp.h"
#include "system/uniproc.h"
#include "tpu/tpu.h"
#include "../traces/atrace_cli.h"
#include "sync/workload.h"

const ComponentClass *const archsim_component_classes[] = {
    &trace_core_class,
    &cache_class,
    &dram_class,
    &coherent_cache_class,
    &bus_class,
    &noc_class,
    &directory_class,
    &dir_cache_class,
    &pattern_core_class,
    &random_tester_class,
    &script_core_class,
    &thread_core_class,
    &workload_class,
    &mem_checker_class,
    &noc_req_ni_class,
    &noc_mem_ni_class,
    &mm_core_class,
    &kernel_core_class,
    &tpu_array_class,
    &tpu_memory_class,
    NULL,
};

const SystemClass *const archsim_system_classes[] = {
    &uniproc_system,
    &smp_system,
    &dirsmp_system,
    &tpu_system,
    NULL,
};

const CliCommand archsim_model_commands[] = {
    { "cachegrind", "cachegrind-compatible I1/D1/LL miss counts of a lackey trace",
      cgsim_cli_main },
    { "check-protocol", "explore a coherence protocol's states and check its invariants",
      checker_cli_main },
    { "litmus", "run herd7 X86 litmus tests under a memory model (sc, tso, pso, weak)",
      litmus_cli_main },
    { "tpu", "run a SCALE-Sim topology on the systolic-array (TPU) model; SCALE-Sim's reports",
      tpu_main },
    { "trace", "archsim traces: trace record/info/dump/gaps (see archsim trace --help)", atrace_cli_main },
    { NULL, NULL, NULL },
};
