// cxxlib.cpp - a shared library that tests/unit/test_symbols.c opens with dlopen: C++ functions
// with namespaced and templated names, reached through extern "C" accessors that also give the
// lines where they are declared.
namespace psc_test
{
static const unsigned scale_line = __LINE__ + 1;
template <typename T> __attribute__((noinline)) T scale(T x)
{
	return x * 3 + 1;
}

template <typename T> struct box {
	static T twice(T x);
};

static const unsigned twice_line = __LINE__ + 1;
template <typename T> __attribute__((noinline)) T box<T>::twice(T x)
{
	return x + x;
}
} // namespace psc_test

extern "C" {
void *psc_sym_cxx_scale(void)
{
	return reinterpret_cast<void *>(&psc_test::scale<int>);
}

void *psc_sym_cxx_twice(void)
{
	return reinterpret_cast<void *>(&psc_test::box<double>::twice);
}

unsigned psc_sym_cxx_scale_line(void)
{
	return psc_test::scale_line;
}

unsigned psc_sym_cxx_twice_line(void)
{
	return psc_test::twice_line;
}

const char *psc_sym_cxx_file(void)
{
	return __FILE__;
}
}
