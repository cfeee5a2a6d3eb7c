/* dircache.h: the private L1 cache controller of the directory protocols, class "dir-cache"
 * (dircache.c; messages in dirmsg.h, tables in protocols/dirproto.h). */
#ifndef ARCHSIM_DIRCACHE_H
#define ARCHSIM_DIRCACHE_H

#include "../../sim/component.h"

extern const ComponentClass dir_cache_class;

#endif
