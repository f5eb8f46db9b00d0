# ssearch36_clsw: ssearch36 whose library scores come from clsw. Used beside FASTA's
# own makefile, from FASTA's src/ (build.sh does this):
#   make -f ../make/Makefile.linux64_sse2 -f PATH/ssearch36_clsw.mk ssearch36 ssearch36_clsw
# The same objects as ssearch36, except comp_lib9.c and dropgsw2.c built with -DCLSW
# (the patch's changes) and clsw_fasta.c; clsw is found through pkg-config (clsw.pc
# from scripts/install.sh PREFIX: PKG_CONFIG_PATH=PREFIX/lib/pkgconfig; build.sh also sets
# PKG_CONFIG to read a prefix that was moved since it was installed).

PKG_CONFIG ?= pkg-config
CLSW_CFLAGS := $(shell $(PKG_CONFIG) --cflags clsw)
CLSW_LIBS := $(shell $(PKG_CONFIG) --libs clsw) -Wl,-rpath,$(shell $(PKG_CONFIG) --variable=libdir clsw)

CLSW_SW_O = init_sw_sse.o dropgsw2_clsw.o smith_waterman_sse2.o lwm_align.o calcons_sw.o clsw_fasta.o
CLSW_OBJS = comp_mthr9_clsw.o $(WORK_THRO) $(THR_SUBS).o $(COMPACC_TO) $(SHOWBESTO) re_getlib.o \
	$(SHOWALIGN_T).o htime.o apam.o doinit.o scale_se.o karlin.o $(CLSW_SW_O) $(LGETLIB) \
	c_dispn.o $(NCBL_LIB) lib_sel.o url_subs.o mrandom.o pssm_asn_subs.o

ssearch36_clsw : $(CLSW_OBJS)
	$(CC) $(HFLAGS) -o $(BIN)/ssearch36_clsw $(CLSW_OBJS) $(CLSW_LIBS) $(LIB_M) $(LIB_DB) $(THR_LIBS)

comp_mthr9_clsw.o : comp_lib9.c clsw_fasta.h mw.h structs.h param.h defs.h
	$(CC) $(THR_CC) $(CFLAGS) -DCOMP_THR -DCOMP_MLIB -DCLSW -c comp_lib9.c -o comp_mthr9_clsw.o

dropgsw2_clsw.o : dropgsw2.c dropgsw2.h clsw_fasta.h defs.h param.h rstruct.h drop_func.h
	$(CC) $(THR_CC) $(CFLAGS) -DSW_SSE2 -DCLSW -c dropgsw2.c -o dropgsw2_clsw.o

clsw_fasta.o : clsw_fasta.c clsw_fasta.h defs.h param.h
	$(CC) $(THR_CC) $(CFLAGS) $(CLSW_CFLAGS) -c clsw_fasta.c -o clsw_fasta.o
