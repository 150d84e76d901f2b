# tmpl/unicode_gen.py — regenerates tmpl/unicode_tables.c: python3 tmpl/unicode_gen.py > tmpl/unicode_tables.c
import unicodedata, sys
MAX=0x110000
def simple_upper(c):
    u=c.upper()
    if len(u)==1: return ord(u)
    t=c.title()
    if len(t)==1: return ord(t)
    return ord(c)
def simple_lower(c):
    l=c.lower()
    if len(l)==1: return ord(l)
    if ord(c)==0x130: return 0x69
    return ord(c)
def simple_title(c):
    t=c.title()
    if len(t)==1: return ord(t)
    return ord(c)
cases=[]
for cp in range(MAX):
    if 0xD800<=cp<=0xDFFF: continue
    c=chr(cp)
    u,l,t=simple_upper(c),simple_lower(c),simple_title(c)
    if (u,l,t)!=(cp,cp,cp): cases.append((cp,u,l,t))
def ranges(pred):
    out=[];start=None
    for cp in range(MAX+1):
        ok = cp<MAX and not (0xD800<=cp<=0xDFFF) and pred(chr(cp))
        if ok and start is None: start=cp
        if not ok and start is not None: out.append((start,cp-1)); start=None
    return out
cat=unicodedata.category
tabs={
 'letter': lambda c: cat(c).startswith('L'),
 'upper': lambda c: cat(c)=='Lu',
 'lower': lambda c: cat(c)=='Ll',
 'title': lambda c: cat(c)=='Lt',
 'digit': lambda c: cat(c)=='Nd',
 'number': lambda c: cat(c).startswith('N'),
 'punct': lambda c: cat(c).startswith('P'),
 'mark': lambda c: cat(c).startswith('M'),
}
o=sys.stdout
o.write("/* tmpl/unicode_tables.c — generated from Python unicodedata %s by a script;\n * simple case mappings and general categories as Go's unicode package has them. */\n#include \"tmpl/sprig_unicode.h\"\n\n" % unicodedata.unidata_version)
o.write("const uni_case uni_cases[] = {\n")
for cp,u,l,t in cases: o.write("\t{0x%X, 0x%X, 0x%X, 0x%X},\n"%(cp,u,l,t))
o.write("};\nconst size_t uni_ncases = sizeof(uni_cases) / sizeof(uni_cases[0]);\n\n")
for name,p in tabs.items():
    r=ranges(p)
    o.write("const uni_range uni_%s[] = {\n"%name)
    for a,b in r: o.write("\t{0x%X, 0x%X},\n"%(a,b))
    o.write("};\nconst size_t uni_n%s = sizeof(uni_%s) / sizeof(uni_%s[0]);\n\n"%(name,name,name))
