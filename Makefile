# PGXS build of the gpu_dbscan extension.  The PostgreSQL glue (src/*.c) is
# compiled here; the clustering core (core/, cuda/) is a static archive built
# by CMake into build/ and linked in.
EXTENSION   = gpu_dbscan
MODULE_big  = gpu_dbscan
DATA        = gpu_dbscan--0.1.sql gpu_dbscan--0.2.sql gpu_dbscan--0.1--0.2.sql
PGFILEDESC  = "gpu_dbscan - DBSCAN clustering of PostGIS geometries on the GPU"

OBJS = $(patsubst %.c,%.o,$(wildcard src/*.c))

REGRESS      = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --inputdir=. --load-extension=postgis --load-extension=gpu_dbscan

PG_CONFIG ?= pg_config
CMAKE     ?= cmake
CORE_BUILD ?= build
CORE_LIB   = $(CORE_BUILD)/libgd_core.a
CUDA_HOME ?= /usr/local/cuda

# Debian's PostgreSQL is built with LLVM; the C++/CUDA archive has no bitcode.
override with_llvm = no

PG_CPPFLAGS = -I$(srcdir)/src -I$(srcdir)/core
# The point neighbour test must match PostGIS bit for bit: no FMA contraction.
PG_CFLAGS   = -ffp-contract=off
SHLIB_LINK += $(CORE_LIB) -lstdc++ -lpthread -lm

# The CUDA back end is built when nvcc is there (WITH_CUDA=no builds the CPU
# path alone); the CUDA runtime is linked statically, so the server needs no
# libcudart and the module loads on machines without a GPU.
WITH_CUDA ?= $(if $(wildcard $(CUDA_HOME)/bin/nvcc),yes,no)
ifeq ($(WITH_CUDA),yes)
SHLIB_LINK += -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/targets/x86_64-linux/lib -lcudart_static -ldl -lrt
CMAKE_CUDA_FLAGS = -DGD_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER=$(CUDA_HOME)/bin/nvcc
else
CMAKE_CUDA_FLAGS = -DGD_WITH_CUDA=OFF
endif

# A package build runs `make clean` after `make install`: without REGRESS,
# PGXS's clean leaves log/ (the scripts' logs) and results/ alone.
ifneq ($(PKG_BUILD),)
REGRESS =
endif

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies (PostgreSQL built without
# --enable-depend): a changed header of the glue or the core's C API
# rebuilds every object, so that no object keeps an old struct layout.
$(OBJS): $(wildcard src/*.h) core/gd_core.h core/gd_inscy.h

# The archive is brought up to date (CMake decides what to rebuild) before
# the shared library is linked.
$(shlib): core

.PHONY: core
core:
	$(CMAKE) -S . -B $(CORE_BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_CUDA_FLAGS) >/dev/null
	$(CMAKE) --build $(CORE_BUILD) --target gd_core -j$$(nproc)

# `make clean` removes the core's build folder too, except in a package build
# from the checkout (PKG_BUILD=1, debian/rules), which reuses build/.
ifeq ($(PKG_BUILD),)
clean: clean-core
endif
.PHONY: clean-core
clean-core:
	rm -rf $(CORE_BUILD)
