#!/usr/bin/env python3
"""gen-wrappers.py - the PMPI wrappers of libperfscope-mpi.so, from src/mpi-rt/mpi-calls.def.

Usage: gen-wrappers.py MPI-CALLS.DEF OUTDIR

Writes into OUTDIR:
  mpi-hooks.h        the family hooks' prototypes (hooks.c and hooks-coll.c define them)
  mpi-wrappers.c     int MPI_X(params): the C wrappers; built against MPICH 4.0, also the
                     mpi_x_f08_ procedures of its mpi_f08 module that call PMPI_X
  mpi-wrappers-f.c   mpi_x_ (and mpi_x, mpi_x__, MPI_X): the Fortran wrappers, which call the
                     Fortran PMPI binding pmpi_x_ so that the MPI library's Fortran semantics
                     are kept, and give the hooks C handles
  mpi-wrappers-f08.c mpi_x_f08_: the same for the mpi_f08 module's procedures (MPI_X_f08, the
                     standard's linker names), which call pmpi_x_f08_; their ierror is OPTIONAL
  mpi-exports.map    the version script: only these symbols are exported

Every wrapper: when not recording, the PMPI call alone. Otherwise the enter record, the
family's pre hook (families in PRE only), the PMPI call, the family's post hook, which builds
the call's items and writes the leave record. MPI_STATUS(ES)_IGNORE is replaced by the
wrapper's own statuses, so that the hooks always see the real source, tag and size.
"""

import os
import re
import sys

# families whose hook must see arguments before the PMPI call changes them
PRE = {
    "wait", "waitall", "waitany", "waitsome", "test", "testall", "testany", "testsome",
    "request_free", "cancel", "comm_free", "finalize",
}
# families whose hook always runs: they decide, with every rank, whether MPI is recorded
GATE_NONE = {"init", "init_thread"}

LINE = re.compile(r"^MPI_CALL\((\w+),\s*(\w+),\s*(\w+),\s*(\w+),\s*\((.*)\)\)\s*$")
# the kinds a non-blocking collective's twin may have: the blocking collectives'
COLL_KINDS = {"BARRIER", "ONE_TO_ALL", "ALL_TO_ONE", "ALL_TO_ALL", "SCAN"}


class Param:
    def __init__(self, text):
        self.text = text.strip()
        t = self.text
        self.array = t.endswith("[]")
        if self.array:
            t = t[:-2].strip()
        m = re.match(r"^(.*?)(\w+)$", t)
        if not m:
            raise ValueError("cannot read parameter '%s'" % text)
        self.ctype = re.sub(r"\s+", " ", m.group(1).strip())
        self.name = m.group(2)
        self.base = self.ctype.replace("const ", "").replace(" ", "")
        self.kind = self._kind()

    def _kind(self):
        b, a, n = self.base, self.array, self.name
        if b in ("void*",):
            return "buf"
        if n == "argc" or n == "argv":
            return "dropped"
        if b == "int" and not a:
            return "int"
        if b == "int*" and not a:
            return "index" if n == "index" else "intout"
        if b == "int" and a:
            return "indices" if n == "array_of_indices" else "intarray"
        if b in ("MPI_Datatype", "MPI_Comm", "MPI_Op", "MPI_Group", "MPI_Info") and not a:
            return "handle"
        if b == "MPI_Datatype" and a:
            return "typearray"
        if b in ("MPI_Comm*", "MPI_Request*") and not a:
            return "handleptr"
        if b == "MPI_Request" and a:
            return "requests"
        if b == "MPI_Status*" and not a:
            return "status"
        if b == "MPI_Status" and a:
            return "statuses"
        raise ValueError("no rule for parameter '%s'" % self.text)

    def handle_class(self):
        """Type, Comm, Op, Group, Info or Request: the f2c function's middle."""
        b = self.base.rstrip("*")
        return {"MPI_Datatype": "Type", "MPI_Comm": "Comm", "MPI_Op": "Op",
                "MPI_Group": "Group", "MPI_Info": "Info", "MPI_Request": "Request"}[b]

    def ctype_plain(self):
        return self.base.rstrip("*")


class Call:
    def __init__(self, name, family, kind, twin, params):
        self.name, self.family, self.kind = name, family, kind
        self.twin = None if twin == "none" else twin
        params = params.strip()
        self.params = [] if params == "void" else [Param(p) for p in split_params(params)]

    def cdecl(self):
        return ", ".join(p.text for p in self.params) or "void"

    def cargs(self):
        return ", ".join(p.name for p in self.params)

    def count_param(self):
        for n in ("count", "incount"):
            if any(p.name == n for p in self.params):
                return n
        return None


def split_params(s):
    return [p for p in (x.strip() for x in s.split(",")) if p]


def read_def(path):
    calls = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line.startswith("MPI_CALL("):
                continue
            m = LINE.match(line)
            if not m:
                sys.exit("%s:%d: cannot read this MPI_CALL line" % (path, lineno))
            try:
                calls.append(Call(*m.groups()))
            except ValueError as e:
                sys.exit("%s:%d: %s" % (path, lineno, e))
    check_twins(path, calls)
    return calls


def check_twins(path, calls):
    """Every non-blocking collective names its blocking twin, a blocking collective listed
    here; no other routine names one."""
    by_name = {c.name: c for c in calls}
    for c in calls:
        if c.kind != "ICOLL":
            if c.twin:
                sys.exit("%s: MPI_%s is no non-blocking collective: its twin must be none"
                         % (path, c.name))
            continue
        t = by_name.get(c.twin) if c.twin else None
        if not t or t.kind not in COLL_KINDS:
            sys.exit("%s: MPI_%s: its twin '%s' is no blocking collective of this list"
                     % (path, c.name, c.twin or "none"))


def families(calls):
    """family -> the first call of it; every call of a family must share its parameters."""
    fam = {}
    for c in calls:
        first = fam.setdefault(c.family, c)
        if [p.base for p in first.params] != [p.base for p in c.params]:
            sys.exit("family %s: MPI_%s and MPI_%s differ in their parameters"
                     % (c.family, first.name, c.name))
    return fam


def hook_params(c):
    """The hooks' parameters: the C prototype's."""
    return "".join(", " + p.text for p in c.params)


def gen_hooks_h(calls):
    out = ["/* mpi-hooks.h - generated by src/mpi-rt/gen-wrappers.py from mpi-calls.def: the family",
           " * hooks the wrappers call. Do not edit. */",
           "#ifndef PSC_MPI_HOOKS_H", "#define PSC_MPI_HOOKS_H", "",
           '#include "mpi-int.h"', ""]
    for fam, c in sorted(families(calls).items()):
        if fam in PRE:
            out.append("void pre_%s(struct mpi_call *c%s);" % (fam, hook_params(c)))
        out.append("void post_%s(struct mpi_call *c, int ret%s);" % (fam, hook_params(c)))
    out += ["", "#endif"]
    return "\n".join(out) + "\n"


def gate(c):
    return "1" if c.family in GATE_NONE else "mpi_recording"


def gen_c(calls):
    out = ["/* mpi-wrappers.c - generated by src/mpi-rt/gen-wrappers.py from mpi-calls.def: the C",
           " * wrappers. Do not edit. */",
           '#include "mpi-hooks.h"', "",
           "#define PSC_WRAPPER __attribute__((visibility(\"default\")))", ""]
    for c in calls:
        args = c.cargs()
        sep = ", " if args else ""
        body = ["static inline __attribute__((always_inline)) int psc_MPI_%s(%s%svoid *psc_ra)"
                % (c.name, c.cdecl() if c.params else "", sep), "{",
                "\tstruct mpi_call c;", "\tint ret;"]
        for p in c.params:
            if p.kind == "status":
                body.append("\tMPI_Status psc_status_%s;" % p.name)
        body += ["", "\tif (unlikely(!%s))" % gate(c),
                 "\t\treturn PMPI_%s(%s);" % (c.name, args)]
        for p in c.params:
            if p.kind == "status":
                body += ["\tif (%s == MPI_STATUS_IGNORE)" % p.name,
                         "\t\t%s = &psc_status_%s;" % (p.name, p.name)]
            elif p.kind == "statuses":
                body += ["\tif (%s == MPI_STATUSES_IGNORE)" % p.name,
                         "\t\t%s = mpi_statuses(%s);" % (p.name, c.count_param())]
        body.append("\tmpi_call_begin(&c, MPI_ROUTINE_%s, psc_ra);" % c.name)
        if c.family in PRE:
            body.append("\tpre_%s(&c%s%s);" % (c.family, sep, args))
        body.append("\tret = PMPI_%s(%s);" % (c.name, args))
        body.append("\tpost_%s(&c, ret%s%s);" % (c.family, sep, args))
        body += ["\treturn ret;", "}", "",
                 "PSC_WRAPPER int MPI_%s(%s)" % (c.name, c.cdecl()), "{",
                 "\treturn psc_MPI_%s(%s%s__builtin_return_address(0));" % (c.name, args, sep),
                 "}", ""]
        out += body
    out += gen_f08_mpich(calls)
    return "\n".join(out) + "\n"


# The two Fortran bindings: mpif.h and the mpi module (F77), the mpi_f08 module (F08). An f08
# handle is a derived type of one INTEGER (MPI_VAL, the mpif.h handle), its status the same
# INTEGERs as an mpif.h status, and MPI_STATUS(ES)_IGNORE and MPI_IN_PLACE the same common
# blocks (Open MPI 4.1): the wrappers differ in their names and in ierror, which f08 callers
# may leave out (a null pointer).
class Abi:
    def __init__(self, wrapper, pmpi, aliases, opt_ierr):
        self.wrapper, self.pmpi, self.aliases, self.opt_ierr = wrapper, pmpi, aliases, opt_ierr


F77 = Abi("mpi_%s_", "pmpi_%s_", ("mpi_%s", "mpi_%s__", "MPI_%s"), False)
F08 = Abi("mpi_%s_f08_", "pmpi_%s_f08_", (), True)


def fparams(c):
    """The Fortran binding's C parameters (argc/argv dropped, ierr last)."""
    ps = []
    for p in c.params:
        if p.kind == "dropped":
            continue
        ps.append("void *%s" % p.name if p.kind == "buf" else "MPI_Fint *%s" % p.name)
    ps.append("MPI_Fint *ierr")
    return ", ".join(ps)


def fargs(c):
    return ", ".join([p.name for p in c.params if p.kind != "dropped"] + ["ierr"])


def gen_f(calls):
    out = ["/* mpi-wrappers-f.c - generated by src/mpi-rt/gen-wrappers.py from mpi-calls.def: the",
           " * Fortran wrappers (mpif.h and the mpi module; not mpi_f08). Do not edit. */",
           '#include "mpi-hooks.h"', "",
           "#define PSC_WRAPPER __attribute__((visibility(\"default\")))", ""]
    for c in calls:
        lname = c.name.lower()
        out.append("void pmpi_%s_(%s);" % (lname, fparams(c)))
    out.append("")
    for c in calls:
        out += gen_f_one(c)
    return "\n".join(out) + "\n"


def gen_f08(calls):
    out = ["/* mpi-wrappers-f08.c - generated by src/mpi-rt/gen-wrappers.py from mpi-calls.def: the",
           " * wrappers of the mpi_f08 module's procedures. Do not edit. */",
           '#include "mpi-hooks.h"', "",
           "#define PSC_WRAPPER __attribute__((visibility(\"default\")))", "",
           "/*",
           " * The f08 bindings (libmpi_usempif08) are referenced weakly: C and mpif.h programs",
           " * never load them, and this library does not make them. A program calling mpi_x_f08_",
           " * has them loaded; should they be missing (only an object loaded later by dlopen",
           " * can call them then), the mpif.h binding takes the call: same arguments in Open MPI.",
           " */"]
    for c in calls:
        lname = c.name.lower()
        out.append("void pmpi_%s_f08_(%s) __attribute__((weak));" % (lname, fparams(c)))
        out.append("void pmpi_%s_(%s);" % (lname, fparams(c)))
    out.append("")
    for c in calls:
        out += gen_f_one(c, F08)
    return "\n".join(out) + "\n"


def gen_f_one(c, abi=F77):
    lname = c.name.lower()
    wrapper = abi.wrapper % lname
    if abi.opt_ierr:
        pmpi = "(%s ? %s : %s)" % (abi.pmpi % lname, abi.pmpi % lname, F77.pmpi % lname)
    else:
        pmpi = abi.pmpi % lname
    pre = c.family in PRE
    cnt = c.count_param()
    decl, before, after, hargs = [], [], [], []
    subst = []
    for p in c.params:
        n, k = p.name, p.kind
        cn = "c_" + n
        if k == "dropped":
            hargs.append("NULL")
        elif k == "buf":
            decl.append("\tvoid *%s = mpi_f_buf(%s);" % (cn, n))
            hargs.append(cn)
        elif k == "int":
            decl.append("\tint %s = (int)*%s;" % (cn, n))
            hargs.append(cn)
        elif k == "intout":
            decl.append("\tint %s = 0;" % cn)
            before.append("\t*%s = (MPI_Fint)%s;" % (n, cn))
            after.append("\t%s = (int)*%s;" % (cn, n))
            hargs.append("&" + cn)
        elif k == "index":
            decl.append("\tint %s = MPI_UNDEFINED;" % cn)
            before.append("\t*%s = %s == MPI_UNDEFINED ? MPI_UNDEFINED : (MPI_Fint)%s + 1;"
                          % (n, cn, cn))
            after.append("\t%s = *%s == MPI_UNDEFINED ? MPI_UNDEFINED : (int)*%s - 1;"
                         % (cn, n, n))
            hargs.append("&" + cn)
        elif k == "intarray":
            hargs.append("(int *)%s" % n)
        elif k == "indices":
            decl.append("\tint *%s = NULL;" % cn)
            after += ["\tif (c_outcount > 0) {",
                      "\t\t%s = mpi_scratch(SCRATCH_F_INDICES, (size_t)c_outcount * sizeof(int));"
                      % cn,
                      "\t\tfor (int i = 0; %s && i < c_outcount; i++)" % cn,
                      "\t\t\t%s[i] = (int)%s[i] - 1;" % (cn, n), "\t}"]
            hargs.append(cn)
        elif k == "handle":
            # first: the datatype arrays of Alltoallw need the communicator
            cl = p.handle_class()
            decl.insert(0, "\t%s %s = PMPI_%s_f2c(*%s);" % (p.ctype_plain(), cn, cl, n))
            hargs.append(cn)
        elif k == "typearray":
            slot = "SCRATCH_F_TYPES1" if n.startswith("send") else "SCRATCH_F_TYPES2"
            comm = "c_comm"
            # a send buffer MPI_IN_PLACE: MPI ignores the send types (a program may pass
            # anything, even an array it never allocated), and so do the hooks
            unused = ("c_sendbuf == MPI_IN_PLACE ? NULL : "
                      if n.startswith("send") and any(q.name == "sendbuf" for q in c.params)
                      else "")
            decl += ["\tint %s_n = mpi_comm_peers(%s);" % (cn, comm),
                     "\tMPI_Datatype *%s = %smpi_scratch(%s, (size_t)(%s_n > 0 ? %s_n : 1) * "
                     "sizeof(MPI_Datatype));" % (cn, unused, slot, cn, cn),
                     "\tfor (int i = 0; %s && i < %s_n; i++)" % (cn, cn),
                     "\t\t%s[i] = PMPI_Type_f2c(%s[i]);" % (cn, n)]
            hargs.append(cn)
        elif k == "handleptr":
            cl = p.handle_class()
            init = "PMPI_%s_f2c(*%s)" % (cl, n) if pre else "MPI_%s_NULL" % cl.upper()
            decl.append("\t%s %s = %s;" % (p.ctype_plain(), cn, init))
            after.append("\t%s = PMPI_%s_f2c(*%s);" % (cn, cl, n))
            hargs.append("&" + cn)
        elif k == "requests":
            decl += ["\tMPI_Request *%s = mpi_scratch(SCRATCH_F_REQUESTS, (size_t)(*%s > 0 ? "
                     "*%s : 1) * sizeof(MPI_Request));" % (cn, cnt, cnt),
                     "\tfor (int i = 0; %s && i < *%s; i++)" % (cn, cnt),
                     "\t\t%s[i] = PMPI_Request_f2c(%s[i]);" % (cn, n)]
            # the handles after the call: the hooks tell the requests MPI freed by them
            after += ["\tfor (int i = 0; %s && i < *%s; i++)" % (cn, cnt),
                      "\t\t%s[i] = PMPI_Request_f2c(%s[i]);" % (cn, n)]
            hargs.append(cn)
        elif k == "status":
            subst += ["\tif (%s == MPI_F_STATUS_IGNORE)" % n, "\t\t%s = psc_fstatus;" % n]
            decl.append("\tMPI_Status %s;" % cn)
            after.append("\tPMPI_Status_f2c(%s, &%s);" % (n, cn))
            hargs.append("&" + cn)
        elif k == "statuses":
            subst += ["\tif (%s == MPI_F_STATUSES_IGNORE && *%s > 0)" % (n, cnt),
                      "\t\t%s = mpi_scratch(SCRATCH_F_STATUSES, (size_t)*%s * PSC_F_STATUS_INTS "
                      "* sizeof(MPI_Fint));" % (n, cnt),
                      "\tif (!%s)" % n, "\t\t%s = MPI_F_STATUSES_IGNORE;" % n]
            ncount = "c_outcount" if any(q.name == "outcount" for q in c.params) else "*" + cnt
            decl.append("\tMPI_Status *%s = NULL;" % cn)
            after += ["\tif (%s != MPI_F_STATUSES_IGNORE && %s > 0)" % (n, ncount),
                      "\t\t%s = mpi_scratch(SCRATCH_F_CSTATUSES, (size_t)%s * sizeof(MPI_Status));"
                      % (cn, ncount),
                      "\tfor (int i = 0; %s && i < %s; i++)" % (cn, ncount),
                      "\t\tPMPI_Status_f2c(%s + (size_t)i * PSC_F_STATUS_INTS, %s + i);" % (n, cn)]
            hargs.append(cn)
        else:
            raise ValueError(k)
    # outputs that later conversions use come first: outcount before indices and statuses
    after.sort(key=lambda s: 0 if s.startswith("\tc_outcount") else 1)
    hsep = ", " if hargs else ""
    body = ["PSC_WRAPPER void %s(%s)" % (wrapper, fparams(c)), "{", "\tstruct mpi_call c;"]
    if any(p.kind == "status" for p in c.params):
        body.append("\tMPI_Fint psc_fstatus[PSC_F_STATUS_INTS];")
    if abi.opt_ierr:
        # the hooks need the error code, and the mpif.h binding a place for it
        body += ["\tMPI_Fint psc_ierr = 0;", "", "\tif (!ierr)", "\t\tierr = &psc_ierr;"]
    body += ["", "\tif (unlikely(!%s)) {" % gate(c),
             "\t\t%s(%s);" % (pmpi, fargs(c)), "\t\treturn;", "\t}"]
    body += subst
    body.append("\tmpi_call_begin(&c, MPI_ROUTINE_%s, __builtin_return_address(0));" % c.name)
    body.append("\t{")
    body += ["\t" + d for d in decl]
    if decl:
        body.append("")
    if pre:
        body.append("\t\tpre_%s(&c%s%s);" % (c.family, hsep, ", ".join(hargs)))
    # outputs read back after the call start as the hook left them: MPI may leave them unset
    # when the call fails
    body += ["\t" + b for b in before]
    body.append("\t\t%s(%s);" % (pmpi, fargs(c)))
    body += ["\t" + a for a in after]
    body.append("\t\tpost_%s(&c, (int)*ierr%s%s);" % (c.family, hsep, ", ".join(hargs)))
    body += ["\t}", "}"]
    for alias in abi.aliases:
        name = alias % (c.name.upper() if alias.startswith("MPI_") else lname)
        body.append("PSC_WRAPPER void %s(%s) __attribute__((alias(\"%s\")));"
                    % (name, fparams(c), wrapper))
    body.append("")
    return body


def gen_f08_mpich(calls):
    """Lines for mpi-wrappers.c, compiled for MPICH 4.0 alone. Its mpi_f08 procedures without
    a choice buffer (mpi_x_f08_) are C functions calling PMPI_X directly, which the C wrappers
    would not see; those with one (mpi_x_f08ts_) call MPI_X and need nothing. These shims do
    what MPICH 4.0's do, through the C wrappers' bodies (with their caller as the call site):
    the handles are the C handles, the status the C status, ierror optional;
    MPI_STATUS(ES)_IGNORE are MPICH's objects; the indices of Waitany ... Testsome stay 0-based
    as MPICH 4.0 returns them (pmodels/mpich#6270, fixed in 4.1, whose f08 procedures differ).
    The 26 shims (mpi-calls.def's routines without a choice buffer: Init, Init_thread,
    Finalize, Probe, Iprobe, Wait/Test and their all/any/some forms, Request_free, Cancel,
    Start, Startall, Barrier, Ibarrier, Comm_dup, Comm_split, Comm_split_type, Comm_create,
    Comm_create_group, Cart_create, Comm_free) were checked against MPICH 4.0.2 alone (Debian
    12's mpich 4.0.2-3+b1: nm -D and objdump -d of libmpichfort.so.12, and
    tests/e2e/test_mpi_mpich.sh's mpi_f08 ring). MPICH >= 4.1 compiles none of them: its
    procedures were not available here to check; its mpi_f08 calls without a buffer are
    recorded only if they go through the C MPI_X (not checked)."""
    out = ["/*",
           " * MPICH 4.0's mpi_f08 procedures that call PMPI_X (gen-wrappers.py gen_f08_mpich).",
           " * MPI_STATUS(ES)_IGNORE of its mpi_f08 module: objects of libmpichfort, referenced",
           " * weakly (C programs do not load it).",
           " */",
           "#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40000000 && "
           "MPICH_NUMVERSION < 40100000",
           "#pragma weak MPIR_F08_MPI_STATUS_IGNORE_OBJ",
           "#pragma weak MPIR_F08_MPI_STATUSES_IGNORE_OBJ", ""]
    for c in calls:
        if any(p.kind in ("buf", "typearray") for p in c.params):
            continue
        ps, args, subst = [], [], []
        for p in c.params:
            n, k = p.name, p.kind
            if k == "dropped":
                args.append("NULL")
            elif k in ("int", "handle"):
                ps.append("%s *%s" % (p.ctype_plain(), n))
                args.append("*" + n)
            elif k in ("intout", "index", "handleptr"):
                ps.append("%s *%s" % (p.ctype_plain(), n))
                args.append(n)
            elif k in ("intarray", "indices", "requests"):
                ps.append("%s %s[]" % (p.ctype_plain().replace("const ", ""), n))
                args.append(n)
            elif k == "status":
                ps.append("MPI_Status *%s" % n)
                subst += ["\tif ((void *)%s == (void *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ)" % n,
                          "\t\t%s = MPI_STATUS_IGNORE;" % n]
                args.append(n)
            elif k == "statuses":
                ps.append("MPI_Status %s[]" % n)
                subst += ["\tif ((void *)%s == (void *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ)" % n,
                          "\t\t%s = MPI_STATUSES_IGNORE;" % n]
                args.append(n)
            else:
                raise ValueError(k)
        ps.append("int *ierr")
        args.append("__builtin_return_address(0)")
        out += ["PSC_WRAPPER void mpi_%s_f08_(%s)" % (c.name.lower(), ", ".join(ps)), "{",
                "\tint ret;", ""] + subst
        out += ["\tret = psc_MPI_%s(%s);" % (c.name, ", ".join(args)),
                "\tif (ierr)", "\t\t*ierr = ret;", "}", ""]
    out += ["#endif", ""]
    return out


def gen_map(calls):
    out = ["/* mpi-exports.map - generated by src/mpi-rt/gen-wrappers.py: the wrappers alone. */",
           "{", "\tglobal:"]
    for c in calls:
        lname = c.name.lower()
        out.append("\t\tMPI_%s;" % c.name)
        for s in ("mpi_%s_", "mpi_%s", "mpi_%s__", "mpi_%s_f08_"):
            out.append("\t\t" + s % lname + ";")
        out.append("\t\tMPI_%s;" % c.name.upper())
    out += ["\tlocal:", "\t\t*;", "};"]
    return "\n".join(out) + "\n"


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen-wrappers.py MPI-CALLS.DEF OUTDIR")
    calls = read_def(sys.argv[1])
    if not calls:
        sys.exit("%s: no MPI_CALL lines" % sys.argv[1])
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    write_if_changed(os.path.join(outdir, "mpi-hooks.h"), gen_hooks_h(calls))
    write_if_changed(os.path.join(outdir, "mpi-wrappers.c"), gen_c(calls))
    write_if_changed(os.path.join(outdir, "mpi-wrappers-f.c"), gen_f(calls))
    write_if_changed(os.path.join(outdir, "mpi-wrappers-f08.c"), gen_f08(calls))
    write_if_changed(os.path.join(outdir, "mpi-exports.map"), gen_map(calls))


if __name__ == "__main__":
    main()
