/* record_main.c: build/tracer/atrace-record, the same code as `archsim trace record`
 * (traces/atrace_record.c) as a standalone program, so that `make traces` does not depend on
 * the trace dispatcher. Not part of the recording runtime (this one links GLib).
 */
#include "../../traces/atrace_record.h"

int main(int argc, char **argv)
{
    return atrace_record_main(argc, argv);
}
