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
#include "gpu/gpu.h"
#include "gpu/gpumsg.h"
#include "gpu/sm.h"
#include "litmus/litmus.h"
#include "rdu/rdu.h"
#include "rdu/rdusys.h"
#include "mem/checker.h"
#include "noc/noc.h"
#include "noc/ni.h"
#include "system/dirsmp.h"
#include "system/smp.h"
#include "system/uniproc.h"
#include "tpu/tpu.h"
#include "../traces/atrace_cli.h"
#include "sync/workload.h"
#include "sync/syncmsg.h"
#include "bus/busmsg.h"
#include "cache/htm.h"
#include "dir/dirmsg.h"
#include "mem/memmsg.h"
#include "msgfam.h"

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
    &gpu_sm_class,
    &gpu_workload_class,
    &gpu_l2_class,
    &rdu_workload_class,
    &rdu_chip_class,
    &rdu_mem_class,
    NULL,
};

/* Message families by id (models/msgfam.h): the designated indices keep the table in step with
 * the enum. */
_Static_assert(MSG_FAM_COUNT <= SIM_EXT_SLOTS, "Sim.ext has a slot per message family");
_Static_assert(MSG_FAM_COUNT <= 256, "a family id is the high byte of a command id");
const MsgFamily *const archsim_msg_families[MSG_FAM_COUNT] = {
    [MSG_FAM_MEM] = &mem_msg_family,
    [MSG_FAM_HTM] = &htm_msg_family,
    [MSG_FAM_BUS] = &bus_msg_family,
    [MSG_FAM_SYNC] = &sync_msg_family,
    [MSG_FAM_DIR] = &dir_msg_family,
    [MSG_FAM_NET] = &net_msg_family,
    [MSG_FAM_GPU] = &gpu_msg_family,
    [MSG_FAM_RDU] = &rdu_msg_family,
};
const unsigned archsim_msg_family_count = MSG_FAM_COUNT;

const MsgFamily *registry_msg_family(uint16_t cmd)
{
    unsigned f = MSG_CMD_FAMILY(cmd);
    return f < MSG_FAM_COUNT ? archsim_msg_families[f] : NULL;
}

const char *registry_msg_cmd_name(uint16_t cmd)
{
    const MsgFamily *f = registry_msg_family(cmd);
    return f != NULL && MSG_CMD_NUMBER(cmd) < f->ncmds ? f->cmds[MSG_CMD_NUMBER(cmd)] : NULL;
}

const SystemClass *const archsim_system_classes[] = {
    &uniproc_system,
    &smp_system,
    &dirsmp_system,
    &tpu_system,
    &gpu_system,
    &rdu_system,
    NULL,
};

const CliCommand archsim_model_commands[] = {
    { "cachegrind", "cachegrind-compatible I1/D1/LL miss counts of a lackey trace",
      cgsim_cli_main },
    { "check-protocol", "explore a coherence protocol's states and check its invariants",
      checker_cli_main },
    { "gpu", "GPU tools: an Accel-Sim SASS trace's kernels (gpu info), occupancy (gpu occupancy)",
      gpu_cli_main },
    { "litmus", "run herd7 X86 litmus tests under a memory model (sc, tso, pso, weak)",
      litmus_cli_main },
    { "rdu", "dataflow RDU tools: map a graph onto a chip (rdu map), run it (rdu run)",
      rdu_cli_main },
    { "tpu", "run a SCALE-Sim topology on the systolic-array (TPU) model; SCALE-Sim's reports",
      tpu_main },
    { "trace", "archsim traces: trace record/info/dump/gaps (see archsim trace --help)", atrace_cli_main },
    { NULL, NULL, NULL },
};
