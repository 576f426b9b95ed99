executable   = x_sleep.pl
universe     = vanilla
output       = $(job).out
error        = $(job).err
queue
