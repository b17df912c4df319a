extern void chronoscope_spike_init(void);
__attribute__((constructor)) static void spike_constructor(void) { chronoscope_spike_init(); }
