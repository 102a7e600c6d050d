import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function CreateAnyLicPage() {
  return <FeaturePending titleKey="pages.createAnyLic" />;
}
