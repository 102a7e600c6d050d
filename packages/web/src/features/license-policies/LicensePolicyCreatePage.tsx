import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function LicensePolicyCreatePage() {
  return <FeaturePending titleKey="pages.licensePolicyCreate" />;
}
