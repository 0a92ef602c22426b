//! The demo catalog (`catalog/demo.json`) as the index document the service builds from it:
//! its taxonomy as written, and each offer with its campaign's eligibility flattened in (as
//! `src/catalog/index-document.ts` does for every live snapshot).
use serde_json::Value;
use sidenote_core::{IndexDocument, OfferDoc, TaxonomyDoc};

const DEMO_CATALOG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../catalog/demo.json");

fn millis(v: &Value) -> Option<i64> {
    // RFC 3339 with an offset, as the catalog writes it; tests need no more than the date's order.
    let s = v.as_str()?;
    let (date, time) = s.split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().unwrap_or(0));
    let (y, m, day) = (d.next()?, d.next()?, d.next()?);
    let hms: Vec<i64> = time.get(..8)?.split(':').map(|p| p.parse().unwrap_or(0)).collect();
    // Days from the civil date (Howard Hinnant's algorithm).
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + day - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    let offset = time.get(8..).map_or(0, |o| {
        let sign = if o.starts_with('-') { -1 } else { 1 };
        let hm: Vec<i64> = o.trim_start_matches(['+', '-']).split(':').map(|p| p.parse().unwrap_or(0)).collect();
        if o == "Z" {
            0
        } else {
            sign * (hm.first().unwrap_or(&0) * 3600 + hm.get(1).unwrap_or(&0) * 60)
        }
    });
    Some(((days * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2]) - offset) * 1000)
}

pub fn demo_document() -> IndexDocument {
    let catalog: Value = serde_json::from_slice(&std::fs::read(DEMO_CATALOG).expect("catalog/demo.json")).expect("demo catalog is JSON");
    let taxonomy: TaxonomyDoc = serde_json::from_value(catalog["taxonomy"].clone()).expect("demo taxonomy");
    let empty = Vec::new();
    let campaigns = catalog["campaigns"].as_array().unwrap_or(&empty);
    let advertisers = catalog["advertisers"].as_array().unwrap_or(&empty);
    let strings = |v: &Value| v.as_array().map_or_else(Vec::new, |a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect());
    let offers = catalog["offers"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
        .filter_map(|(i, o)| {
            let campaign = campaigns.iter().find(|c| c["id"] == o["campaign_id"])?;
            let advertiser = advertisers.iter().find(|a| a["id"] == campaign["advertiser_id"] && a["status"] == "active")?;
            Some(OfferDoc {
                snapshot_id: format!("snp_demo{i}"),
                offer_id: o["id"].as_str()?.into(),
                campaign_id: campaign["id"].as_str()?.into(),
                advertiser_id: advertiser["id"].as_str()?.into(),
                advertiser_entity_id: advertiser["entity_id"].as_str().map(String::from),
                kind: o["kind"].as_str()?.into(),
                locale: o["locale"].as_str()?.into(),
                category_ids: strings(&o["targeting"]["category_ids"]),
                entity_ids: strings(&o["targeting"]["entity_ids"]),
                budget_buckets: strings(&o["targeting"]["budget_buckets"]),
                countries: strings(&campaign["countries"]),
                campaign_status: campaign["status"].as_str()?.into(),
                starts_at_ms: millis(&campaign["starts_at"]),
                ends_at_ms: millis(&campaign["ends_at"]),
                priority: campaign["priority"].as_u64()? as u32,
                bid_micros: campaign["bid_micros"].as_u64()?,
            })
        })
        .collect();
    IndexDocument { taxonomy, offers }
}
