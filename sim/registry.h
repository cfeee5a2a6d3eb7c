/* registry.h: what the engine needs to know about models, without naming any of them. The one
 * registry file, models/registry.c, defines these arrays; the engine and the CLI iterate them. */
#ifndef ARCHSIM_REGISTRY_H
#define ARCHSIM_REGISTRY_H

#include "component.h"

typedef struct {
    const char *name;       /* top-level key in the config, e.g. "l1d" */
    const char *cls;        /* default component class, e.g. "cache" */
    const char *doc;
    const char *count;      /* NULL: one instance named `name`; else the name of a system
                               parameter N: instances name0 .. name(N-1) share the section */
    const char *const *alts;  /* other classes `type:` may pick (NULL-terminated), or NULL */
} SystemSection;

/* A system class builds a machine from the config: which top-level sections exist, which class
 * each one instantiates, and how they are wired. */
typedef struct {
    const char *name;                  /* value of system.type */
    const char *doc;
    const ParamSpec *params;           /* keys of the `system:` section besides `type` */
    size_t params_size;
    const SystemSection *sections;     /* terminated by { NULL } */
    /* part: the machine graph this short-hand expands to, a file of configs/parts/machines/
     * built into the binary (docs/machines.md). Each section becomes the component of its name:
     * its type: picks the class, its count: parameter the array's size, its keys the
     * parameters. NULL: build creates and wires every component itself (a system whose sections
     * are instantiated one component per section). */
    const char *part;
    /* expand (optional, with part): adjusts the loaded graph before it is built (links that
     * depend on a section's class, such as thread-cores' sync ports) */
    bool (*expand)(const void *params, const CfgNode *root, CfgNode *graph, GError **error);
    /* with part: settles what the system derives once the graph is built and linked (shared
     * settings, checks across sections, the reference checks), before the classes check their
     * links and every component is realized; without part: builds components
     * (sim_component_new) and wires them (sim_connect) */
    bool (*build)(Sim *sim, const void *params, const CfgNode *root, GError **error);
    /* optional: system-wide statistics appended after the components' (e.g. sums over all the
     * instances of a replicated section) */
    void (*stats)(Sim *sim, StatSet *set);
} SystemClass;

typedef struct {
    const char *name;
    const char *summary;
    int (*main)(int argc, char **argv);   /* argv[0] is the subcommand name */
} CliCommand;

extern const ComponentClass *const archsim_component_classes[];  /* NULL-terminated */
extern const SystemClass *const archsim_system_classes[];        /* NULL-terminated */
extern const CliCommand archsim_model_commands[];                /* name == NULL ends */

/* The message families (sim/msg.h), indexed by family id; NULL where no family has the id
 * (id 0, and the test family, which the unit tests define). */
extern const MsgFamily *const archsim_msg_families[];
extern const unsigned archsim_msg_family_count;

const ComponentClass *registry_find_class(const char *name);
/* A command's family and name for dumps and messages ("mem", "read_req"); NULL when the id is
 * none the registry knows. */
const MsgFamily *registry_msg_family(uint16_t cmd);
const char *registry_msg_cmd_name(uint16_t cmd);
/* The same never NULL, for messages: "?" when unknown. */
#define MSG_NAME(cmd) (registry_msg_cmd_name(cmd) != NULL ? registry_msg_cmd_name(cmd) : "?")
const SystemClass *registry_find_system(const char *name);

#endif
