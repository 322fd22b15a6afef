# flamegraphs.mk: turn a directory of captures into flame graphs, in
# parallel with make -j.
#
#   make -f scripts/flamegraphs.mk -j DIR=captures
#   make -f scripts/flamegraphs.mk -j DIR=captures SLICE=10s HEATMAP=1
#   make -f scripts/flamegraphs.mk DIR=captures clean
#
# Inputs, in DIR: NAME.data (perf record output) and NAME.folded.gz (timed
# folded stacks, as perf-timetravel --convert writes them; classic folded
# works too, without slices and heat maps). When both exist, NAME.folded.gz
# is used. NAME.data is first converted, once, to OUT/NAME.folded.gz:
#   stackcollapse NAME.data | gzip
# (stackcollapse reads perf.data itself, and runs perf script on the files it
# cannot read as perf does: DWARF call graphs, another host's capture)
#
# Outputs, in OUT (default: DIR):
#   NAME.svg                 the whole capture
#   NAME.slice-0000s.svg ... with SLICE=10s: consecutive 10 s windows from
#                            the capture's first sample (0000s = offset in
#                            seconds), like FlameGraph's range-perf.pl series;
#                            windows are [from, to), so together they hold
#                            every sample exactly once
#   NAME.heatmap.svg         with HEATMAP=1: timeslice's sub-second heat map
#
# Knobs (make VAR=value):
#   DIR=.  OUT=$(DIR)  SLICE=  (whole seconds: 10s or 10; empty: no slices)
#   HEATMAP=  (1: heat maps)
#   STACKCOLLAPSE_FLAGS=  FLAMEGRAPH_FLAGS=  TIMESLICE_FLAGS=  (e.g. --no-idle,
#   applied to slices and heat maps)
#   STACKCOLLAPSE=stackcollapse  FLAMEGRAPH=flamegraph
#   TIMESLICE=timeslice  (commands; default: found on PATH)
# File names must not contain blanks, ':' or '%'.

self := $(lastword $(MAKEFILE_LIST))
SHELL := bash
.SHELLFLAGS := -o pipefail -c
.DELETE_ON_ERROR:
.SUFFIXES:

DIR ?= .
OUT ?= $(DIR)
SLICE ?=
HEATMAP ?=
STACKCOLLAPSE ?= stackcollapse
FLAMEGRAPH ?= flamegraph
TIMESLICE ?= timeslice
STACKCOLLAPSE_FLAGS ?=
FLAMEGRAPH_FLAGS ?=
TIMESLICE_FLAGS ?=

# Slice length in whole seconds.
slice_seconds := $(patsubst %s,%,$(strip $(SLICE)))
ifneq ($(slice_seconds),)
ifeq ($(shell [[ '$(slice_seconds)' =~ ^[1-9][0-9]*$$ ]] && echo ok),)
$(error SLICE=$(SLICE): want a whole number of seconds, such as SLICE=10s)
endif
endif

names := $(sort $(patsubst %.data,%,$(notdir $(wildcard $(DIR)/*.data))) \
	$(patsubst %.folded.gz,%,$(notdir $(wildcard $(DIR)/*.folded.gz))))

# $(call folded,NAME): the folded stacks of capture NAME.
folded = $(if $(wildcard $(DIR)/$(1).folded.gz),$(DIR)/$(1).folded.gz,$(OUT)/$(1).folded.gz)

svgs := $(names:%=$(OUT)/%.svg)
# NAME.timed-*.mk lists the slices and heat map of capture NAME, made only
# when asked for (they need its span, so make reads it and restarts).
# The list's name carries the settings, so changing them makes a new list.
timed_suffix := timed$(if $(slice_seconds),-$(slice_seconds)s)$(if $(HEATMAP),-heatmap).mk
timed_lists := $(if $(slice_seconds)$(HEATMAP),$(names:%=$(OUT)/%.$(timed_suffix)))

.PHONY: all clean timed
all: $(svgs) timed

ifeq ($(names),)
$(warning flamegraphs.mk: no *.data or *.folded.gz in DIR=$(DIR))
endif

$(OUT):
	mkdir -p $@

# perf.data -> timed folded, kept (it is the slow step). Every output is
# written in place: make deletes it if its recipe fails or is interrupted.
$(OUT)/%.folded.gz: $(DIR)/%.data | $(OUT)
	$(STACKCOLLAPSE) $(STACKCOLLAPSE_FLAGS) $< | gzip > $@

# The span of a capture in seconds (last - first sample), from its metadata
# lines, else from its timed lines; empty for classic folded stacks.
span = zcat -f -- $(1) | awk ' \
	/^\# flamekit v1 timed / { \
		if (match($$0, / first="[0-9.]+"/)) { v = substr($$0, RSTART + 8, RLENGTH - 9) + 0; if (!hf || v < f) f = v; hf = 1 } \
		if (match($$0, / last="[0-9.]+"/)) { v = substr($$0, RSTART + 7, RLENGTH - 8) + 0; if (!hl || v > l) l = v; hl = 1 } \
		next } \
	!hf && $$NF ~ /^@[0-9.]+$$/ { v = substr($$NF, 2) + 0; if (!t || v < tf) tf = v; if (!t || v > tl) tl = v; t = 1 } \
	END { if (hf && hl) printf "%.6f\n", l - f; else if (t) printf "%.6f\n", tl - tf }'

# NAME.timed-*.mk: with SLICE, the slices of capture NAME at offsets 0,
# SLICE, 2*SLICE ... up to its last sample; with HEATMAP, its heat map.
# Nothing for classic (untimed) folded stacks.
timed_mk = span=$$($(call span,$(2))) && \
	{ if [[ -z $$span ]]; then \
	    echo "flamegraphs.mk: $(2) has no timed samples: no slices or heat map" >&2; \
	  else \
	    $(if $(HEATMAP),echo 'heatmap_svgs += $(OUT)/$(1).heatmap.svg';) \
	    $(if $(slice_seconds),n=$$(awk -v s="$$span" -v w=$(slice_seconds) 'BEGIN { print int(s / w) + 1 }'); \
	    echo "flamegraphs.mk: $(1) spans $$span s: $$n slices of $(slice_seconds) s" >&2; \
	    printf 'slice_svgs +='; \
	    for ((i = 0; i < n; i++)); do printf ' $(OUT)/$(1).slice-%04ds.svg' $$((i * $(slice_seconds))); done; echo;) \
	  fi; } > $@

# The slice starting OFFSET seconds after the first sample. An empty slice
# (a gap in the capture) still gets flamegraph's "no valid input" SVG.
slice_svg = from=$$((10\#$(2))); to=$$((from + $(slice_seconds))); \
	echo "$(TIMESLICE) $(TIMESLICE_FLAGS) --from $${from}s --to $${to}s $(1) | $(FLAMEGRAPH) ... > $@"; \
	$(TIMESLICE) -q $(TIMESLICE_FLAGS) --from $${from}s --to $${to}s $(1) > $@.folded && \
	{ $(FLAMEGRAPH) --title "$(3), $${from} s to $${to} s" $(FLAMEGRAPH_FLAGS) $@.folded > $@ \
	  || { st=$$?; [[ $$st == 2 && ! -s $@.folded ]] || exit $$st; }; }; \
	st=$$?; rm -f $@.folded; exit $$st

define capture
$(OUT)/$(1).svg: $(call folded,$(1)) | $(OUT)
	$$(FLAMEGRAPH) --title "$(1)" $$(FLAMEGRAPH_FLAGS) $$< > $$@

$(OUT)/$(1).heatmap.svg: $(call folded,$(1)) | $(OUT)
	$$(TIMESLICE) -q --heatmap $$(TIMESLICE_FLAGS) $$< > $$@

$(OUT)/$(1).$(timed_suffix): $(call folded,$(1)) $(self) | $(OUT)
	@$$(call timed_mk,$(1),$$<)

$(OUT)/$(1).slice-%s.svg: $(call folded,$(1)) | $(OUT)
	@$$(call slice_svg,$$<,$$*,$(1))
endef
$(foreach n,$(names),$(eval $(call capture,$(n))))

# The lists are made (and make restarts) before the slices are built; a
# list that cannot be made stops make.
slice_svgs :=
heatmap_svgs :=
ifneq ($(timed_lists),)
include $(timed_lists)
endif
timed: $(slice_svgs) $(heatmap_svgs)

clean:
	rm -f $(svgs) $(names:%=$(OUT)/%.heatmap.svg) $(wildcard $(names:%=$(OUT)/%.timed*.mk)) \
		$(wildcard $(names:%=$(OUT)/%.slice-*s.svg))
