//! `clsw devices`: every OpenCL device with the self-test of its own scan variant (of the
//! portable kernels with `CLSW_PORTABLE=1`), and what the device choice (`CLSW_DEVICE`,
//! else auto) uses.

use clsw::device::{ClDevice, DeviceKind, DeviceSpec, list_devices};
use clsw::engine::self_test;
use clsw::scan::Variant;
use clsw::words::counted;
use clsw::{Error, Result};

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

pub fn run() -> Result<()> {
    let devices = list_devices()?;
    if devices.is_empty() {
        println!("No OpenCL devices found: clsw computes on the CPU with its native SIMD path.");
        println!("For GPUs install the vendor's OpenCL driver; for CPUs, PoCL (pocl-opencl-icd).");
        return Ok(());
    }
    let choice = DeviceSpec::resolve(None)?;
    let mut failed = 0;
    for d in &devices {
        let kind = match d.kind {
            DeviceKind::Gpu => "GPU",
            DeviceKind::Cpu => "CPU",
            DeviceKind::Other => "other",
        };
        println!("[{}] {}", d.index, d.name.trim());
        println!("    platform:      {} (driver {})", d.platform.trim(), d.driver_version.trim());
        println!("    type:          {kind}, {} compute units at {} MHz", d.compute_units, d.clock_mhz);
        println!(
            "    memory:        {} global, {} per allocation, {} KiB local",
            gib(d.global_mem_bytes),
            gib(d.max_alloc_bytes),
            d.local_mem_bytes / 1024
        );
        println!("    OpenCL C:      {}", d.opencl_c_version.trim());
        if choice.portable() {
            println!("    kernels:       portable (CLSW_PORTABLE=1: no vendor code)");
        }
        // The variant a run uses on this device unless it names another (which is
        // tested the first time a run does).
        let variant = Variant::for_device(d);
        let result = ClDevice::new(d.clone()).and_then(|dev| {
            let dev = dev.with_portable(choice.portable());
            if dev.subgroup_shuffles() {
                println!(
                    "    sub-groups:    shuffles, in team launches whose sub-groups hold whole teams \
                     (CLSW_SUBGROUPS=0 turns them off)"
                );
            }
            self_test(&dev, &[variant])
        });
        match result {
            Ok(t) if t.passed() => println!(
                "    self-test:     passed (variant {variant}: {} pairs equal to the reference, {:.2} s)",
                t.pairs, t.seconds
            ),
            Ok(t) => {
                failed += 1;
                println!("    self-test:     FAILED: {}", t.failure.unwrap_or_default());
            }
            Err(e) => {
                failed += 1;
                println!("    self-test:     FAILED: {e}");
            }
        }
    }
    match choice.select() {
        Ok(b) => {
            println!("\ndevice choice '{choice}' uses: {}", b.iter().map(|b| b.label()).collect::<Vec<_>>().join(", "))
        }
        Err(e) => println!("\ndevice choice '{choice}': {e}"),
    }
    if failed > 0 {
        return Err(Error::Device(format!(
            "{} the self-test",
            counted(failed as u64, "device failed", "devices failed")
        )));
    }
    Ok(())
}
