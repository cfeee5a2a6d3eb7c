/* memmodel.c: the four memory models of memmodel.h as rows of one table. */
#include "memmodel.h"

#include <glib.h>

const MemModel mem_models[MM_COUNT] = {
    /*            name    ld_ld  ld_st  st_st  st_ld  forward */
    [MM_SC] =   { "sc",   false, false, false, false, false },
    [MM_TSO] =  { "tso",  false, false, false, true,  true },
    [MM_PSO] =  { "pso",  false, false, true,  true,  true },
    [MM_WEAK] = { "weak", true,  true,  true,  true,  true },
};

const char *const mem_model_choices[] = { "sc", "tso", "pso", "weak", NULL };

const MemModel *mem_model_find(const char *name)
{
    for (int i = 0; i < MM_COUNT; i++)
        if (g_ascii_strcasecmp(mem_models[i].name, name) == 0)
            return &mem_models[i];
    return NULL;
}
