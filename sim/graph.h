/* graph.h: the built machine as a graph: every component (name, class, clock) and every link
 * (requester port -> responder port, latency), as text for `archsim describe --machine` and as
 * a Graphviz digraph for `archsim run --graph FILE` (docs/outputs.md, "The machine's graph"). */
#ifndef ARCHSIM_GRAPH_H
#define ARCHSIM_GRAPH_H

#include <glib.h>

#include "component.h"

/* One line per component in creation order, "NAME  CLASS  CLOCK", then its links from its
 * requester ports: "  PORT -> PEER.PORT  latency N cycles". */
void sim_graph_text(const Sim *sim, GString *out);
/* digraph machine { ... }: a node per component (label: name, class, clock), an edge per link
 * from the requesting port's side, labelled with both ports and the latency. */
void sim_graph_dot(const Sim *sim, GString *out);

#endif
