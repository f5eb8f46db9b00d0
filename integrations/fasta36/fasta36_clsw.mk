# ssearch36_clsw, ggsearch36_clsw, glsearch36_clsw: FASTA's ssearch36, ggsearch36 and
# glsearch36 whose library scores come from clsw. Used beside FASTA's own makefile,
# from FASTA's src/ (build.sh does this):
#   make -f ../make/Makefile.linux64_sse2 -f PATH/fasta36_clsw.mk \
#     ssearch36 ssearch36_clsw ggsearch36 ggsearch36_clsw glsearch36 glsearch36_clsw
# The same objects as each stock program (Makefile.pcom_t, Makefile.sse_alt), except
# comp_lib9.c and the program's drop file (dropgsw2.c, or dropnnw2.c with and without
# -DGLOBAL_GLOBAL) built with -DCLSW (the patch's changes), plus clsw_fasta.c; clsw is
# found through pkg-config (clsw.pc from scripts/install.sh PREFIX:
# PKG_CONFIG_PATH=PREFIX/lib/pkgconfig; build.sh also sets PKG_CONFIG to read a prefix
# that was moved since it was installed).

PKG_CONFIG ?= pkg-config
CLSW_CFLAGS := $(shell $(PKG_CONFIG) --cflags clsw)
CLSW_LIBS := $(shell $(PKG_CONFIG) --libs clsw) -Wl,-rpath,$(shell $(PKG_CONFIG) --variable=libdir clsw)

CLSW_COMMON_O = comp_mthr9_clsw.o $(WORK_THRO) $(THR_SUBS).o $(COMPACC_TO) $(SHOWBESTO) re_getlib.o \
	$(SHOWALIGN_T).o htime.o apam.o doinit.o karlin.o clsw_fasta.o $(LGETLIB) \
	c_dispn.o $(NCBL_LIB) lib_sel.o url_subs.o mrandom.o pssm_asn_subs.o
CLSW_SW_O = scale_se.o init_sw_sse.o dropgsw2_clsw.o smith_waterman_sse2.o lwm_align.o calcons_sw.o
CLSW_GNW_O = scale_sn.o init_gnw_sse.o dropgnw_sse_clsw.o global_sse2.o gwm_align.o calcons_sw.o
CLSW_LNW_O = scale_sn.o init_lnw_sse.o droplnw_sse_clsw.o glocal_sse2.o gwm_align.o calcons_sw.o

ssearch36_clsw : $(CLSW_COMMON_O) $(CLSW_SW_O)
	$(CC) $(HFLAGS) -o $(BIN)/ssearch36_clsw $(CLSW_COMMON_O) $(CLSW_SW_O) $(CLSW_LIBS) $(LIB_M) $(LIB_DB) $(THR_LIBS)

ggsearch36_clsw : $(CLSW_COMMON_O) $(CLSW_GNW_O)
	$(CC) $(HFLAGS) -o $(BIN)/ggsearch36_clsw $(CLSW_COMMON_O) $(CLSW_GNW_O) $(CLSW_LIBS) $(LIB_M) $(LIB_DB) $(THR_LIBS)

glsearch36_clsw : $(CLSW_COMMON_O) $(CLSW_LNW_O)
	$(CC) $(HFLAGS) -o $(BIN)/glsearch36_clsw $(CLSW_COMMON_O) $(CLSW_LNW_O) $(CLSW_LIBS) $(LIB_M) $(LIB_DB) $(THR_LIBS)

comp_mthr9_clsw.o : comp_lib9.c clsw_fasta.h mw.h structs.h param.h defs.h
	$(CC) $(THR_CC) $(CFLAGS) -DCOMP_THR -DCOMP_MLIB -DCLSW -c comp_lib9.c -o comp_mthr9_clsw.o

dropgsw2_clsw.o : dropgsw2.c dropgsw2.h clsw_fasta.h defs.h param.h rstruct.h drop_func.h
	$(CC) $(THR_CC) $(CFLAGS) -DSW_SSE2 -DCLSW -c dropgsw2.c -o dropgsw2_clsw.o

dropgnw_sse_clsw.o : dropnnw2.c dropgsw2.h clsw_fasta.h defs.h param.h rstruct.h drop_func.h
	$(CC) $(THR_CC) -DGLOBAL_GLOBAL -DSW_SSE2 -DCLSW $(CFLAGS) -c dropnnw2.c -o dropgnw_sse_clsw.o

droplnw_sse_clsw.o : dropnnw2.c dropgsw2.h clsw_fasta.h defs.h param.h rstruct.h drop_func.h
	$(CC) $(THR_CC) -DSW_SSE2 -DCLSW $(CFLAGS) -c dropnnw2.c -o droplnw_sse_clsw.o

clsw_fasta.o : clsw_fasta.c clsw_fasta.h defs.h param.h
	$(CC) $(THR_CC) $(CFLAGS) $(CLSW_CFLAGS) -c clsw_fasta.c -o clsw_fasta.o
