# SPDX-License-Identifier: GPL-2.0
#
# rstat-analyze: `make` builds ./rstat-analyze; `make check` installs what is
# missing, builds and runs every test; `make demo` runs the main job.

VERSION := 0.1.0
PKGS := libtraceevent libtracefs libdw libelf libzstd

CC ?= gcc
CFLAGS ?= -O2 -g
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
GIT_VERSION := $(shell git describe --always --dirty 2>/dev/null)
BASE_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
	-Wno-missing-field-initializers -D_GNU_SOURCE -Iinclude $(PKG_CFLAGS) \
	-DRS_VERSION='"$(if $(GIT_VERSION),$(GIT_VERSION),$(VERSION))"'
# libiberty (no pkg-config file): cplus_demangle(), the demangler perf uses.
LDLIBS := $(PKG_LIBS) -liberty -lm

ifeq ($(V),1)
Q :=
else
Q := @
endif

# The command layer (main.c and one cmd-<name>.c per subcommand) sits on
# library code (everything else under src/), which the unit tests and the
# fuzz targets link too.
CMD_SRC := src/main.c $(sort $(wildcard src/cmd-*.c))
LIB_SRC := $(sort $(filter-out $(CMD_SRC),$(shell find src -name '*.c')))
CMD_OBJ := $(CMD_SRC:%.c=build/%.o)
LIB_OBJ := $(LIB_SRC:%.c=build/%.o)
SAN_OBJ := $(LIB_SRC:%.c=build/san/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test-*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/san/tests/%)
WORKLOAD_SRC := $(sort $(wildcard tests/workloads/*.c))
WORKLOAD_CXX := $(sort $(wildcard tests/workloads/*.cc))
WORKLOAD_BIN := $(WORKLOAD_SRC:tests/workloads/%.c=build/workloads/%) \
	$(WORKLOAD_CXX:tests/workloads/%.cc=build/workloads/%)
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined

all: rstat-analyze

rstat-analyze: $(CMD_OBJ) $(LIB_OBJ)
	@echo "  LINK    $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# -MMD: each object also depends on the headers it includes (private ones
# under src/ too), from the .d files gcc writes beside it.
build/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# Sanitized copies of the library for the unit tests.
build/san/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC [san] $<"
	$(Q)$(CC) $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS) -MMD -MP -c -o $@ $<

build/san/rstat-analyze: $(CMD_SRC:%.c=build/san/%.o) $(SAN_OBJ)
	@echo "  LINK [san] $@"
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(LDLIBS)

build/san/tests/%: tests/unit/%.c tests/unit/unit.h $(SAN_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC [san] $<"
	$(Q)$(CC) $(BASE_CFLAGS) -Itests/unit -O1 -g $(SAN_FLAGS) -MMD -MP \
		-o $@ $< $(SAN_OBJ) $(LDLIBS)

build/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) -O0 -g -fno-omit-frame-pointer -o $@ $<

build/workloads/%: tests/workloads/%.cc
	@mkdir -p $(dir $@)
	@echo "  CXX     $<"
	$(Q)$(CXX) -O0 -g -fno-omit-frame-pointer -o $@ $<

tests: $(UNIT_BIN) $(WORKLOAD_BIN) build/san/rstat-analyze rstat-analyze

deps:
	$(Q)scripts/install-deps.sh

check: deps
	$(Q)$(MAKE) --no-print-directory all tests
	$(Q)tests/run.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/demo.sh

# libFuzzer targets (clang): the perf.data reader and the perf script text
# reader. `make fuzz-run EXECS=N` runs each for N executions.
FUZZ_CC ?= clang
FUZZ_FLAGS := -fsanitize=fuzzer,address,undefined -O1 -g
EXECS ?= 100000

build/fuzz/lib/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC [fuzz] $<"
	$(Q)$(FUZZ_CC) $(BASE_CFLAGS) -O1 -g -MMD -MP \
		-fsanitize=fuzzer-no-link,address,undefined -c -o $@ $<

build/fuzz/%: tests/fuzz/%.c $(LIB_SRC:%.c=build/fuzz/lib/%.o)
	@mkdir -p $(dir $@)
	@echo "  CC [fuzz] $<"
	$(Q)$(FUZZ_CC) $(BASE_CFLAGS) $(FUZZ_FLAGS) -o $@ $^ $(LDLIBS)

fuzz: $(FUZZ_BIN)

# libtraceevent 1.7.1 leaks on malformed event formats (inside the
# library), so the perf.data target runs without leak detection; our own
# leaks are caught by the sanitized unit and shell tests.
fuzz-run: fuzz
	$(Q)for f in $(FUZZ_BIN); do \
		n=$$(basename $$f); mkdir -p build/fuzz/corpus-$$n; \
		leaks=1; [ $$n = fuzz-perf-data ] && leaks=0; \
		ASAN_OPTIONS=detect_leaks=$$leaks $$f -runs=$(EXECS) \
			-detect_leaks=$$leaks build/fuzz/corpus-$$n \
			tests/fuzz/corpus/$$n || exit 1; \
	done

clean:
	rm -rf build rstat-analyze

-include $(shell find build -name '*.d' 2>/dev/null)

.PHONY: all tests deps check demo fuzz fuzz-run clean
.SECONDARY:
