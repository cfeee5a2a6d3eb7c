# archsim: build, run, test, bench. C11, flags from pkg-config.
#   make            build ./archsim
#   make run        install missing Debian packages (as root), build, run configs/default.yaml
#   make test       unit tests (CUnit), regression (golden stats, determinism), bad-input tests
#   make bench      speed figures against their targets, peers side by side (Dinero IV, valgrind's
#                   cachegrind, SCALE-Sim: tools/peers/); BENCH_BASE=OLD/archsim adds an older
#                   binary's figures and the ratios new / old (docs/testing.md "Benchmarks")
#   make DEBUG=1    ASan + UBSan build;  make WERROR=1  warnings are errors (automatic when CI=true)
#   make NO_MPI=1   build without MPI even where OpenMPI is installed (`archsim sweep --mpi` then
#                   says how to enable it); with it, build/archsim-mpi is the MPI side of sweeps
#   make traces     record the sample traces of workloads/ into traces/samples/ (tools/tracer/)
#   make gpu-ptx    compile workloads/gpu/*/*.cu to the PTX committed beside them (needs nvcc)
#   make install    PREFIX=DIR (default /usr/local) and DESTDIR: DIR/bin/archsim and archsim-cc,
#                   DIR/share/archsim/ (configs, sample traces, the inputs examples name), the man
#                   page and bash completion (docs/install.md);  make uninstall removes them
#   make fuzz       run every fuzz harness tools/fuzz/fuzz_*.c for FUZZ_SECONDS (default 1800)
#                   with AFL++ (libFuzzer if AFL++ is absent), then replay its queue under
#                   ASan+UBSan; FUZZ_JOBS=N runs N at once, FUZZ="config lackey" picks some

PKGS     := glib-2.0 yaml-0.1 zlib liblzma cunit
.DEFAULT_GOAL := all
CC       ?= cc
BUILD    ?= build
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# the one version string (sim/version.h): --version, run.json, sweep.json, dumps, man page
ARCHSIM_VERSION := $(shell cat VERSION 2>/dev/null || echo unknown)
CFLAGS_BASE = -std=c11 -D_GNU_SOURCE -DARCHSIM_VERSION='"$(ARCHSIM_VERSION)"' $(WARN)
ifeq ($(DEBUG),1)
  OPT    := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer
  LDSAN  := -fsanitize=address,undefined
  BUILD  := build-debug
else
  # -O3: against -O2 on the same tree, 7 % fewer host instructions and 5-7 % less CPU time on the
  # 8-core snooping and uniprocessor benches and litmus random mode, every answer the same
  OPT    := -O3 -g
  LDSAN  :=
endif
# CI (which sets CI=true) builds with warnings as errors; so does WERROR=1
ifneq ($(filter 1,$(WERROR))$(filter true,$(CI)),)
  WARN   += -Werror
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS = $(CFLAGS_BASE) $(OPT) $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(LDSAN) $(LDFLAGS)
LIBS       = $(PKG_LIBS) -lm


# ---- MPI (optional; docs/sweeps.md "MPI"): OpenMPI from openmpi-bin + libopenmpi-dev, found by
# its pkg-config file or mpicc. Only sim/cli/sweep_mpi.c and tools/bench_mpi_window.c see mpi.h (as a
# system header, so -W flags stay clean). libmpi is linked into $(BUILD)/archsim-mpi only: the
# same program with sweep_mpi.c built against MPI, to which archsim's `sweep --mpi` hands its
# command line, so that archsim itself loads no MPI library (about 3 ms of every start).
ifneq ($(NO_MPI),1)
  ifeq ($(shell pkg-config --exists ompi-c 2>/dev/null && echo y),y)
    MPI_INC  := $(shell pkg-config --cflags ompi-c)
    MPI_LIBS := $(shell pkg-config --libs ompi-c)
    HAVE_MPI := 1
  else ifneq ($(shell command -v mpicc 2>/dev/null),)
    MPI_INC  := $(shell mpicc --showme:compile 2>/dev/null)
    MPI_LIBS := $(shell mpicc --showme:link 2>/dev/null)
    HAVE_MPI := $(if $(MPI_LIBS),1,)
  endif
endif
ifeq ($(HAVE_MPI),1)
  MPI_CFLAGS := -DARCHSIM_HAVE_MPI $(patsubst -I%,-isystem %,$(MPI_INC))
else
  MPI_LIBS :=
endif
# objects that depend on the MPI choice are rebuilt when it changes (make vs make NO_MPI=1)
MPI_STAMP := $(BUILD)/mpi-$(if $(HAVE_MPI),on,off).stamp
$(BUILD)/mpi-%.stamp:
	@mkdir -p $(dir $@) && rm -f $(BUILD)/mpi-*.stamp && touch $@
$(BUILD)/sim/cli/sweep_mpi.o: OBJ_CFLAGS += $(if $(HAVE_MPI),-DARCHSIM_MPI_HELPER)
$(BUILD)/sim/cli/sweep_mpi.o: $(MPI_STAMP)
# private: not passed on to the prerequisites (libarchsim.a's sweep_mpi.o would be built
# against MPI, and archsim, which links no libmpi, would fail to link)
$(BUILD)/tools/bench_mpi_window: private ALL_CFLAGS += $(MPI_CFLAGS)
$(BUILD)/tools/bench_mpi_window: private LIBS += $(MPI_LIBS)
$(BUILD)/tools/bench_mpi_window: $(MPI_STAMP)
MPI_BIN := $(if $(HAVE_MPI),$(BUILD)/archsim-mpi)

# ---- flags are tracked: $(FLAGS_STAMP) holds the compiler and flags of the last build in
# $(BUILD) and is rewritten (so everything built from it is out of date) only when they differ:
# `make WERROR=1` after `make` recompiles, an unchanged `make` does nothing. The same for the
# commit that --version and run.json print ($(GIT_STAMP), main.o and sweep.o only).
GIT_HASH    := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
FLAGS_STAMP := $(BUILD)/flags.stamp
GIT_STAMP   := $(BUILD)/git.stamp
FLAGS_TEXT   = $(strip $(CC) $(ALL_CFLAGS) $(FUZZ_HARNESS_FLAGS) | $(ALL_LDFLAGS) | $(LIBS) \
                 $(FUZZ_HARNESS_LIBS))
# (a stamp that differs is made out of date by FORCE, so make -n and make -q report it too)
ifneq ($(shell cat $(FLAGS_STAMP) 2>/dev/null),$(FLAGS_TEXT))
  $(FLAGS_STAMP): FORCE
endif
ifneq ($(shell cat $(GIT_STAMP) 2>/dev/null),$(GIT_HASH))
  $(GIT_STAMP): FORCE
endif
$(FLAGS_STAMP):
	@mkdir -p $(dir $@) && printf '%s\n' '$(subst ','\'',$(FLAGS_TEXT))' > $@
$(GIT_STAMP):
	@mkdir -p $(dir $@) && printf '%s\n' '$(GIT_HASH)' > $@
.PHONY: FORCE
FORCE:

LIB_SRC  := $(filter-out sim/cli/main.c,$(wildcard sim/*.c sim/cli/*.c)) $(wildcard models/*.c models/*/*.c \
            models/*/*/*.c protocols/*.c traces/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/machine_parts.o
# the graphs of today's short-hand systems, built into the binary (tools/mkparts.sh)
MACHINE_PARTS := $(sort $(wildcard configs/parts/machines/*.yaml))
TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRC := $(wildcard tools/*.c)
TOOL_BIN := $(TOOL_SRC:tools/%.c=$(BUILD)/tools/%)
# every tools/fuzz/fuzz_NAME.c is a harness (tools/fuzz/README.md); make test replays its corpus
# tests/fuzz/NAME/ through this plain build (tests/regress/fuzz-corpus.sh)
FUZZ_SRC := $(wildcard tools/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tools/fuzz/%.c=$(BUILD)/fuzz/%)

.PHONY: all run test unit bench bench-mpi clean deps check-deps archsim protocol-docs traces tracer \
        fuzz fuzz-harnesses install uninstall gpu-ptx
MAN        := $(BUILD)/archsim.1
COMPLETION := $(BUILD)/archsim.bash
all: check-deps archsim $(TOOL_BIN) $(MAN) $(COMPLETION)

# ---- dependencies: install missing Debian packages as root, or print the exact line ----
deps:
	@sh tools/deps.sh install
check-deps:
	@sh tools/deps.sh check

$(BUILD)/sim/cli/main.o $(BUILD)/sim/cli/sweep.o: OBJ_CFLAGS += -DARCHSIM_GIT='"$(GIT_HASH)"'
$(BUILD)/sim/cli/main.o $(BUILD)/sim/cli/sweep.o: $(GIT_STAMP)

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(OBJ_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/gen/machine_parts.c: $(MACHINE_PARTS) tools/mkparts.sh
	@mkdir -p $(dir $@)
	sh tools/mkparts.sh $(MACHINE_PARTS) > $@.tmp && mv -f $@.tmp $@
$(BUILD)/gen/machine_parts.o: $(BUILD)/gen/machine_parts.c $(FLAGS_STAMP)
	$(CC) $(ALL_CFLAGS) -Wno-missing-variable-declarations -c $< -o $@

$(BUILD)/libarchsim.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# ./archsim is a link to the binary of the last flavour built (build/ or build-debug/), so a
# plain `make` after `make DEBUG=1` never leaves the sanitizer binary in place.
archsim: $(BUILD)/archsim $(MPI_BIN)
	@ln -sf $(BUILD)/archsim archsim

$(BUILD)/archsim: $(BUILD)/sim/cli/main.o $(BUILD)/libarchsim.a $(MPI_STAMP) $(FLAGS_STAMP)
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) $(LIBS)
	$(if $(HAVE_MPI),,@rm -f $(BUILD)/archsim-mpi)

# the MPI side (docs/sweeps.md "MPI"): its sweep_mpi_mpi.o comes first, so the library's
# sweep_mpi.o (the hand-over) is not linked in
$(BUILD)/sim/cli/sweep_mpi_mpi.o: sim/cli/sweep_mpi.c $(MPI_STAMP) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(MPI_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/archsim-mpi: $(BUILD)/sim/cli/main.o $(BUILD)/sim/cli/sweep_mpi_mpi.o $(BUILD)/libarchsim.a \
                      $(MPI_STAMP) $(FLAGS_STAMP)
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) $(LIBS) $(MPI_LIBS)

# -MMD: a test is rebuilt when a header or data file it includes (tests/unit/data/...) changes
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libarchsim.a $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -MMD -MP -MF $@.d -o $@ $< $(BUILD)/libarchsim.a $(LIBS)

$(BUILD)/fuzz/%: tools/fuzz/%.c $(BUILD)/libarchsim.a $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FUZZ_HARNESS_FLAGS) $(ALL_LDFLAGS) -MMD -MP -MF $@.d -o $@ $< \
	  $(FUZZ_HARNESS_LIBS) $(BUILD)/libarchsim.a $(LIBS)

$(BUILD)/tools/%: tools/%.c $(BUILD)/libarchsim.a $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libarchsim.a $(LIBS)

# the man page and the bash completion, generated from the --help texts of the binary just built
$(MAN): $(BUILD)/archsim tools/mkman.sh
	sh tools/mkman.sh $(BUILD)/archsim > $@.tmp && mv -f $@.tmp $@
$(COMPLETION): $(BUILD)/archsim tools/mkcompletion.sh
	sh tools/mkcompletion.sh $(BUILD)/archsim > $@.tmp && mv -f $@.tmp $@

run: deps
	@$(MAKE) --no-print-directory archsim
	./archsim run configs/default.yaml

test: deps
	@$(MAKE) --no-print-directory all $(TEST_BIN) $(FUZZ_BIN)
	@sh tests/run-all.sh $(BUILD)

unit: all $(TEST_BIN)
	@sh tests/run-all.sh $(BUILD) unit

bench: all $(BUILD)/tools/bench_engine $(BUILD)/tools/gen_synth
	@BENCH_BASE="$(BENCH_BASE)" BENCH_RUNS="$(BENCH_RUNS)" sh tools/bench.sh $(BUILD)

# the cost of one synchronization window between 2 MPI ranks on this machine (docs/scaling.md)
MPIRUN_FLAGS ?= --oversubscribe $(if $(filter 0,$(shell id -u)),--allow-run-as-root,)
bench-mpi: all
	@if [ "$(HAVE_MPI)" != 1 ] || ! command -v mpirun > /dev/null; then \
	  echo "bench-mpi: needs OpenMPI: as root apt-get install -y openmpi-bin libopenmpi-dev, then make" >&2; exit 1; fi
	mpirun -np 2 $(MPIRUN_FLAGS) $(BUILD)/tools/bench_mpi_window -n 200000
	mpirun -np 2 $(MPIRUN_FLAGS) --mca btl self,tcp $(BUILD)/tools/bench_mpi_window -n 50000

# each protocol's transition table, generated from the data in protocols/
protocol-docs: archsim
	@mkdir -p docs/protocols
	@for p in msi mesi moesi dir-msi dir-mesi; do ./archsim check-protocol --markdown $$p > docs/protocols/$$p.md || exit 1; \
	  echo "wrote docs/protocols/$$p.md"; done

# ---- the GPU workloads' PTX (docs/gpu-ptx.md) ----
# Each workloads/gpu/NAME/NAME.cu compiled to the NAME.ptx committed beside it, by the nvcc on
# this machine (no GPU needed); CI uses the committed files.
GPU_CU := $(wildcard workloads/gpu/*/*.cu)
NVCC ?= nvcc
NVCC_FLAGS ?= -ptx -O3 -arch=sm_80
gpu-ptx:
	@command -v $(NVCC) > /dev/null || { echo "make gpu-ptx: needs nvcc (the CUDA toolkit); the committed .ptx files are used without it" >&2; exit 1; }
	@for f in $(GPU_CU); do echo "$(NVCC) $(NVCC_FLAGS) $$f -o $${f%.cu}.ptx"; \
	  $(NVCC) $(NVCC_FLAGS) $$f -o $${f%.cu}.ptx || exit 1; done

# ---- recording real kernels (tools/tracer/README.md) ----
# The runtime linked into traced programs: plain C + zlib, built by tools/archsim-cc (which also
# rebuilds it on demand), never with the sanitizer flags of DEBUG=1.
TRACER_RT_SRC := tools/tracer/rt.c tools/tracer/hooks.c tools/tracer/wrap.c traces/atrace_write.c
TRACER_RT := $(BUILD)/tracer/archsim_tracer.o
$(TRACER_RT): $(TRACER_RT_SRC) tools/tracer/rt.h tools/tracer/archsim_trace.h traces/atrace.h \
              tools/archsim-cc
	@ARCHSIM_BUILD=$(abspath $(BUILD)) tools/archsim-cc --build-runtime > /dev/null

# `archsim trace record` as a standalone program, so make traces needs no dispatcher change
$(BUILD)/tracer/atrace-record: tools/tracer/record_main.c $(BUILD)/libarchsim.a $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libarchsim.a $(LIBS)

tracer: $(TRACER_RT) $(BUILD)/tracer/atrace-record

# builds workloads/ with tools/archsim-cc, records traces/samples/<name>/, writes its README.md
traces: tracer
	@sh tools/tracer/make-traces.sh $(BUILD)

# ---- fuzzing (tools/fuzz/README.md) ----
# Two flavours of the library and of every harness, each in its own build folder: AFL++'s
# instrumentation (or, without AFL++, clang's libFuzzer, which calls the harness's main through
# tools/fuzz/libfuzzer_main.c), and ASan+UBSan for replaying what the fuzzer kept.
FUZZ_SECONDS ?= 1800
FUZZ_JOBS    ?= 1
FUZZ         ?= $(FUZZ_SRC:tools/fuzz/fuzz_%.c=%)
FUZZ_ENGINE  ?= $(if $(and $(shell command -v afl-fuzz 2>/dev/null),$(shell command -v afl-clang-fast 2>/dev/null)),afl,libfuzzer)
FUZZ_SUB      = $(MAKE) --no-print-directory NO_MPI=1 CI= WERROR=
FUZZ_LF_MAIN := build-fuzz/libfuzzer/fuzz/libfuzzer_main.o
ifeq ($(FUZZ_ENGINE),afl)
  FUZZ_CC    := afl-clang-fast
  FUZZ_SUBVARS := CC=afl-clang-fast
else
  FUZZ_CC    := clang
  FUZZ_SUBVARS := CC=clang CFLAGS="-fsanitize=fuzzer-no-link,address,undefined" \
                  LDFLAGS="-fsanitize=fuzzer,address,undefined" \
                  FUZZ_HARNESS_FLAGS=-Dmain=fuzz_harness_main FUZZ_HARNESS_LIBS=$(FUZZ_LF_MAIN)
endif
fuzz-harnesses:
	@command -v $(FUZZ_CC) > /dev/null || { echo "make fuzz: needs AFL++ (as root: apt-get install -y afl++) or clang with libFuzzer" >&2; exit 1; }
	@if [ $(FUZZ_ENGINE) = libfuzzer ]; then mkdir -p $(dir $(FUZZ_LF_MAIN)) && \
	  clang -std=c11 -O1 -g -fsanitize=fuzzer-no-link,address,undefined -c tools/fuzz/libfuzzer_main.c -o $(FUZZ_LF_MAIN); fi
	@AFL_QUIET=1 $(FUZZ_SUB) BUILD=build-fuzz/$(FUZZ_ENGINE) $(FUZZ_SUBVARS) \
	  $(FUZZ:%=build-fuzz/$(FUZZ_ENGINE)/fuzz/fuzz_%)
	@$(FUZZ_SUB) BUILD=build-fuzz/asan DEBUG=1 $(FUZZ:%=build-fuzz/asan/fuzz/fuzz_%)
fuzz: fuzz-harnesses
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_ENGINE=$(FUZZ_ENGINE) \
	  sh tools/fuzz/run.sh $(FUZZ)

# ---- install (docs/install.md): the binary finds DATADIR from its own location ----
# DATA_DIRS: what the shipped configs and the examples of README.md, docs/ and --help read at
# run time, in the tree's own layout (configs/tpu/*.yaml name ../../tests/tpu/shipped/...).
PREFIX   ?= /usr/local
DESTDIR  ?=
I_BIN     = $(DESTDIR)$(PREFIX)/bin
I_DATA    = $(DESTDIR)$(PREFIX)/share/archsim
I_LIB     = $(DESTDIR)$(PREFIX)/lib/archsim
I_MAN     = $(DESTDIR)$(PREFIX)/share/man/man1
I_COMPL   = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
DATA_DIRS := configs traces/samples tests/gpu/traces workloads/gpu workloads/dataflow tests/tpu/shipped tests/tpu/scalesim/configs \
             tests/tpu/scalesim/topologies tests/litmus/herd tests/litmus/rare
DATA_FILES = $(wildcard tests/litmus/*.litmus tests/litmus/*.csv)
install: all $(TRACER_RT)
	@case "$(PREFIX)" in /*) ;; *) echo "make install: PREFIX must be absolute (got '$(PREFIX)')" >&2; exit 64;; esac
	install -d $(I_BIN) $(I_DATA) $(I_LIB) $(I_MAN) $(I_COMPL)
	install -m 755 $(BUILD)/archsim $(I_BIN)/archsim
	$(if $(MPI_BIN),install -m 755 $(MPI_BIN) $(I_LIB)/archsim-mpi,rm -f $(I_LIB)/archsim-mpi)
	install -m 755 tools/archsim-cc $(I_BIN)/archsim-cc
	install -m 644 $(TRACER_RT) tools/tracer/archsim_trace.h $(I_LIB)/
	install -m 644 $(MAN) $(I_MAN)/archsim.1
	install -m 644 $(COMPLETION) $(I_COMPL)/archsim
	rm -rf $(I_DATA) && install -d $(I_DATA)
	for d in $(DATA_DIRS); do install -d $(I_DATA)/$$(dirname $$d) && cp -R $$d $(I_DATA)/$$d || exit 1; done
	install -d $(I_DATA)/tests/litmus && install -m 644 $(DATA_FILES) $(I_DATA)/tests/litmus/
	install -m 644 VERSION $(I_DATA)/VERSION
	@echo "installed archsim $(ARCHSIM_VERSION) in $(DESTDIR)$(PREFIX) (data: $(I_DATA))"

uninstall:
	rm -f $(I_BIN)/archsim $(I_BIN)/archsim-cc $(I_MAN)/archsim.1 $(I_COMPL)/archsim
	rm -rf $(I_DATA) $(I_LIB)

clean:
	rm -rf build build-debug build-fuzz archsim

-include $(LIB_OBJ:.o=.d) $(BUILD)/sim/cli/main.d $(BUILD)/sim/cli/sweep_mpi_mpi.d $(TEST_BIN:=.d) \
         $(FUZZ_BIN:=.d)
